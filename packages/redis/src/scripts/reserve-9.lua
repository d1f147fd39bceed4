-- Leases up to `count` ready messages, promoting due delayed ones first. In a queue with limits
-- (meta field `limited`, see includes/flow.lua), a message over its limits is held aside in the
-- delayed set (until its rate token is due, or until a slot of its scope frees) and the messages
-- behind it are taken instead, so one limited task never blocks the others.
-- KEYS: the 9 queue keys.
-- ARGV[1] now (epoch ms; '' = the server's clock, for a reserve queued behind a blocking wait);
-- ARGV[2] count; ARGV[3] visibility timeout (ms).
-- Returns: { state, id1, body1, deliveries1, id2, ... }; state is '+' when more messages are ready,
--   else the earliest delayed due time or '' (the ready set is empty: a worker may go straight to
--   sleep, and knows for how long).
-- A paused queue (meta field `paused`, see resume-9.lua) leases nothing and reports itself empty:
-- its worker sleeps until the resume wakes it.
-- #include common
-- #include flow

-- Most pops of one reservation in a queue with limits, so a queue full of held tasks stays quick.
local MAX_ROUNDS = 8

local flags = redis.call('HMGET', meta, 'paused', 'limited')
if flags[1] then return { '' } end

local now = ARGV[1]
if now == '' then
  local time = redis.call('TIME')
  now = num(tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000))
end
local deadline = num(tonumber(now) + tonumber(ARGV[3]))
-- The earliest delayed message says whether any is due and, most often, the next due time too:
-- one call where most reservations find nothing due (each call costs Redis a few µs).
local nextDue = redis.call('ZRANGE', delayed, 0, 0, 'WITHSCORES')[2]
if nextDue and tonumber(nextDue) <= tonumber(now) then
  local due = redis.call('ZRANGEBYSCORE', delayed, '-inf', now, 'LIMIT', 0, 1000)
  makeReady(due)
  for i = 1, #due, 1000 do
    redis.call('ZREM', delayed, unpack(due, i, math.min(i + 999, #due)))
  end
  nextDue = redis.call('ZRANGE', delayed, 0, 0, 'WITHSCORES')[2]
end
-- Held for a slot is not a due time: a release wakes those.
if nextDue and tonumber(nextDue) >= HELD then nextDue = nil end
local count = tonumber(ARGV[2])
local ids = {}
local more
if not flags[2] then
  local popped = redis.call('ZPOPMIN', ready, count)
  for i = 1, #popped, 2 do ids[#ids + 1] = popped[i] end
  -- Fewer than asked for means the ready set is empty.
  more = #popped == 2 * count and redis.call('ZCARD', ready) > 0
else
  local nowMs = tonumber(now)
  for _ = 1, MAX_ROUNDS do
    local popped = redis.call('ZPOPMIN', ready, count - #ids)
    if #popped == 0 then break end
    local fields = {}
    for i = 1, #popped, 2 do fields[#fields + 1] = 'limits:' .. popped[i] end
    local stored = redis.call('HMGET', meta, unpack(fields))
    for i, limits in ipairs(stored) do
      local id = popped[2 * i - 1]
      local decoded = limits and cjson.decode(limits)
      local hold = decoded and admit(id, decoded, nowMs)
      if hold then
        redis.call('ZADD', delayed, num(hold), id)
        if hold < HELD then
          wakeAt(hold)
          nextDue = math.min(tonumber(nextDue) or hold, hold)
        end
      else
        ids[#ids + 1] = id
        -- A unique task leaves 'queued' here: a 'queued' lock ends, a 'running' one begins.
        local unique = decoded and decoded.unique
        if unique and unique['while'] == 'queued' then unlockUnique(id, limits) end
        if unique and unique['while'] == 'running' then lockUnique(id, unique) end
        -- A debounced task's window ends when it starts: a send from now on opens a new one.
        if decoded and decoded.debounce then unlockDebounce(id, decoded.debounce) end
      end
    end
    if #ids >= count then break end
  end
  more = redis.call('ZCARD', ready) > 0
end
local out = { nextDue and num(tonumber(nextDue)) or '' }
-- More may be waiting than this worker took: pass the wake-up on to another idle worker.
if more then
  out[1] = '+'
  wake()
end
if #ids == 0 then return out end
local lostFields, leases = {}, {}
for i, id in ipairs(ids) do
  lostFields[i] = 'lost:' .. id
  leases[#leases + 1] = deadline
  leases[#leases + 1] = id
end
local bodies = redis.call('HMGET', messages, unpack(ids))
local lost = redis.call('HMGET', meta, unpack(lostFields))
callInChunks('ZADD', active, leases)
for i, id in ipairs(ids) do
  out[#out + 1] = id
  out[#out + 1] = bodies[i] or ''
  out[#out + 1] = (tonumber(lost[i]) or 0) + 1
end
return out
