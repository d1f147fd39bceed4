-- Publishes a batch of messages, ready or delayed, and wakes one blocked worker (at once, or at the
-- earliest due time).
-- KEYS: the 9 queue keys (see includes/common.lua).
-- ARGV[1] now (epoch ms); ARGV[2] n; then n groups of 6: id, priority, eta (epoch ms, 0 = now),
--   mode ('0' = a new message, '1' = idempotent: skip when the id is still waiting or running,
--   '2' = a debounce replacement, see below), body, limits (JSON, '' = none; see includes/flow.lua).
--   A message whose limits make it unique is not stored while a live task holds its key: its result
--   is that task's id instead (see includes/flow.lua).
--   A debounced message is not stored while a task waits out its key's window: its result names that
--   task, { 'debounce-into', id }, and the sender publishes it again encoded under that id in mode
--   '2', which swaps that task's body, limits, priority and due time if it still waits (result: its
--   id), else names the task now waiting ({ 'debounce-into', id }) or answers 2 (none: send afresh).
-- Returns: n results, 1 = published, 0 = duplicate (its id is still waiting or running), 2 = a missed
--   replacement, the id of the unique task it duplicates (or of the task a replacement replaced), or
--   { 'debounce-into', id }.
-- #include common
-- #include flow

-- Swaps a waiting debounced task's message for the replacement in ARGV group `base`; returns the result.
local function replaceWaiting(id, holder, base, debounce, now)
  if holder ~= id then return holder and { 'debounce-into', holder } or 2 end
  local eta = tonumber(ARGV[base + 3])
  redis.call('HSET', messages, id, ARGV[base + 5])
  redis.call('HSET', meta, 'limits:' .. id, ARGV[base + 6])
  if ARGV[base + 2] == '0' then
    redis.call('HDEL', meta, 'priority:' .. id)
  else
    redis.call('HSET', meta, 'priority:' .. id, ARGV[base + 2])
  end
  redis.call('ZADD', delayed, num(eta), id)
  wakeAt(eta)
  lockDebounce(id, debounce, eta, now)
  return id
end

local now = tonumber(ARGV[1])
local n = tonumber(ARGV[2])
local results, messageFields, readyArgs, delayedArgs, metaFields = {}, {}, {}, {}, {}
local readyIds, seen, windows = {}, {}, {}
local limited = false
for i = 1, n do
  local base = 2 + (i - 1) * 6
  local id = ARGV[base + 1]
  local limits = ARGV[base + 6] ~= '' and cjson.decode(ARGV[base + 6])
  local unique = limits and limits.unique
  local debounce = limits and limits.debounce
  local holder = unique and uniqueHolder(unique, seen)
  local waiting = debounce and debounceHolder(debounce, windows)
  local eta = tonumber(ARGV[base + 3])
  if ARGV[base + 4] == '1' and (seen[id] or redis.call('HEXISTS', messages, id) == 1) then
    results[i] = 0
  elseif ARGV[base + 4] == '2' then
    results[i] = debounce and replaceWaiting(id, waiting, base, debounce, now) or 2
  elseif holder then
    results[i] = holder
  elseif waiting then
    results[i] = { 'debounce-into', waiting }
  else
    if unique and unique['while'] ~= 'running' then lockUnique(id, unique) end
    if debounce then
      lockDebounce(id, debounce, eta, now)
      if eta > now then windows[id] = true end
    end
    results[i] = 1
    seen[id] = true
    local priority = tonumber(ARGV[base + 2])
    messageFields[#messageFields + 1] = id
    messageFields[#messageFields + 1] = ARGV[base + 5]
    if ARGV[base + 6] ~= '' then
      metaFields[#metaFields + 1] = 'limits:' .. id
      metaFields[#metaFields + 1] = ARGV[base + 6]
      limited = true
    end
    if priority > 0 then
      metaFields[#metaFields + 1] = 'priority:' .. id
      metaFields[#metaFields + 1] = priority
    end
    if eta > now then
      delayedArgs[#delayedArgs + 1] = ARGV[base + 3]
      delayedArgs[#delayedArgs + 1] = id
    else
      readyIds[#readyIds + 1] = { id, priority }
    end
  end
end
if #messageFields == 0 then return results end
callInChunks('HSET', messages, messageFields)
if limited then
  metaFields[#metaFields + 1] = 'limited'
  metaFields[#metaFields + 1] = 1
end
if #metaFields > 0 then callInChunks('HSET', meta, metaFields) end
if #readyIds > 0 then
  local first = redis.call('INCRBY', seq, #readyIds) - #readyIds
  for i, entry in ipairs(readyIds) do
    readyArgs[#readyArgs + 1] = readyScore(entry[2], first + i)
    readyArgs[#readyArgs + 1] = entry[1]
  end
  callInChunks('ZADD', ready, readyArgs)
end
if #delayedArgs > 0 then
  callInChunks('ZADD', delayed, delayedArgs)
  local earliest = math.huge
  for i = 1, #delayedArgs, 2 do earliest = math.min(earliest, tonumber(delayedArgs[i])) end
  wakeAt(earliest)
end
if #readyIds > 0 then wake() end
return results
