-- Leases up to `count` ready messages, promoting due delayed ones first.
-- KEYS: the 9 queue keys.
-- ARGV[1] now (epoch ms; '' = the server's clock, for a reserve queued behind a blocking wait);
-- ARGV[2] count; ARGV[3] visibility timeout (ms).
-- Returns: { state, id1, body1, deliveries1, id2, ... }; state is '+' when more messages are ready,
--   else the earliest delayed due time or '' (the ready set is empty: a worker may go straight to
--   sleep, and knows for how long).
-- A paused queue (meta field `paused`, see resume-9.lua) leases nothing and reports itself empty:
-- its worker sleeps until the resume wakes it.
-- #include common

if redis.call('HEXISTS', KEYS[5], 'paused') == 1 then return { '' } end

local now = ARGV[1]
if now == '' then
  local time = redis.call('TIME')
  now = num(tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000))
end
local deadline = num(tonumber(now) + tonumber(ARGV[3]))
-- The earliest delayed message says whether any is due and, most often, the next due time too:
-- one call where most reservations find nothing due (each call costs Redis a few µs).
local nextDue = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')[2]
if nextDue and tonumber(nextDue) <= tonumber(now) then
  local due = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 1000)
  makeReady(due)
  for i = 1, #due, 1000 do
    redis.call('ZREM', KEYS[2], unpack(due, i, math.min(i + 999, #due)))
  end
  nextDue = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')[2]
end
local count = tonumber(ARGV[2])
local popped = redis.call('ZPOPMIN', KEYS[1], count)
if #popped == 0 then return { nextDue or '' } end
local ids, fields, lostFields, active = {}, {}, {}, {}
for i = 1, #popped, 2 do
  local id = popped[i]
  ids[#ids + 1] = id
  lostFields[#lostFields + 1] = 'lost:' .. id
  active[#active + 1] = deadline
  active[#active + 1] = id
end
local bodies = redis.call('HMGET', KEYS[4], unpack(ids))
local lost = redis.call('HMGET', KEYS[5], unpack(lostFields))
callInChunks('ZADD', KEYS[3], active)
-- More may be waiting than this worker took: pass the wake-up on to another idle worker. Fewer
-- than asked for means the ready set is empty.
local out = { nextDue or '' }
if #popped == 2 * count and redis.call('ZCARD', KEYS[1]) > 0 then
  out[1] = '+'
  wake()
end
for i, id in ipairs(ids) do
  out[#out + 1] = id
  out[#out + 1] = bodies[i] or ''
  out[#out + 1] = (tonumber(lost[i]) or 0) + 1
end
return out
