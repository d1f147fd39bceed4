-- Returns a leased message to its queue, now or after a delay, optionally with a new body (retries).
-- KEYS: the 9 queue keys.
-- ARGV[1] id; ARGV[2] delivery number; ARGV[3] now (epoch ms); ARGV[4] delay (ms); ARGV[5] body ('' keeps it).
-- Returns: 1 when requeued, 0 when the caller no longer held the lease.
-- #include common
-- #include flow

local id = ARGV[1]
local held, limits = leaseCounts({ id }, { ARGV[2] })
if not held[1] or redis.call('ZREM', active, id) == 0 then return 0 end
releaseSlots({ id }, limits)
if ARGV[5] ~= '' then redis.call('HSET', messages, id, ARGV[5]) end
local delay = tonumber(ARGV[4])
if delay > 0 then
  local due = tonumber(ARGV[3]) + delay
  redis.call('ZADD', delayed, num(due), id)
  wakeAt(due)
else
  requeueNow({ id })
end
return 1
