-- Publishes a batch of messages, ready or delayed, and wakes one blocked worker (at once, or at the
-- earliest due time).
-- KEYS: the 9 queue keys (see includes/common.lua).
-- ARGV[1] now (epoch ms); ARGV[2] n; then n groups of 6: id, priority, eta (epoch ms, 0 = now),
--   idempotent ('1' = skip when the id is still waiting or running), body, limits (JSON, '' = none;
--   see includes/flow.lua).
--   A message whose limits make it unique is not stored while a live task holds its key: its result
--   is that task's id instead (see includes/flow.lua).
-- Returns: n results, 1 = published, 0 = duplicate (its id is still waiting or running), or the id of
--   the unique task it duplicates.
-- #include common
-- #include flow

local now = tonumber(ARGV[1])
local n = tonumber(ARGV[2])
local results, messages, ready, delayed, meta = {}, {}, {}, {}, {}
local readyIds, seen = {}, {}
local limited = false
for i = 1, n do
  local base = 2 + (i - 1) * 6
  local id = ARGV[base + 1]
  local unique = ARGV[base + 6] ~= '' and cjson.decode(ARGV[base + 6]).unique
  local holder = unique and uniqueHolder(unique, seen)
  if ARGV[base + 4] == '1' and (seen[id] or redis.call('HEXISTS', KEYS[4], id) == 1) then
    results[i] = 0
  elseif holder then
    results[i] = holder
  else
    if unique and unique['while'] ~= 'running' then lockUnique(id, unique) end
    results[i] = 1
    seen[id] = true
    local priority = tonumber(ARGV[base + 2])
    local eta = tonumber(ARGV[base + 3])
    messages[#messages + 1] = id
    messages[#messages + 1] = ARGV[base + 5]
    if ARGV[base + 6] ~= '' then
      meta[#meta + 1] = 'limits:' .. id
      meta[#meta + 1] = ARGV[base + 6]
      limited = true
    end
    if priority > 0 then
      meta[#meta + 1] = 'priority:' .. id
      meta[#meta + 1] = priority
    end
    if eta > now then
      delayed[#delayed + 1] = ARGV[base + 3]
      delayed[#delayed + 1] = id
    else
      readyIds[#readyIds + 1] = { id, priority }
    end
  end
end
if #messages == 0 then return results end
callInChunks('HSET', KEYS[4], messages)
if limited then
  meta[#meta + 1] = 'limited'
  meta[#meta + 1] = 1
end
if #meta > 0 then callInChunks('HSET', KEYS[5], meta) end
if #readyIds > 0 then
  local seq = redis.call('INCRBY', KEYS[6], #readyIds) - #readyIds
  for i, entry in ipairs(readyIds) do
    ready[#ready + 1] = readyScore(entry[2], seq + i)
    ready[#ready + 1] = entry[1]
  end
  callInChunks('ZADD', KEYS[1], ready)
end
if #delayed > 0 then
  callInChunks('ZADD', KEYS[2], delayed)
  local earliest = math.huge
  for i = 1, #delayed, 2 do earliest = math.min(earliest, tonumber(delayed[i])) end
  wakeAt(earliest)
end
if #readyIds > 0 then wake() end
return results
