-- Returns a leased message whose run was lost (its process died) to the queue, counting the lost
-- delivery; a message delivered `maxDeliveries` times is dead-lettered instead.
-- KEYS: the 9 queue keys.
-- ARGV[1] id; ARGV[2] delivery number; ARGV[3] now (epoch ms); ARGV[4] maxDeliveries; ARGV[5] reason;
-- ARGV[6] largest body a dead letter keeps whole (bytes).
-- Returns: 1 requeued, 2 dead-lettered, 0 when the caller no longer held the lease.
-- #include common
-- #include flow

local id = ARGV[1]
local delivery = tonumber(ARGV[2])
local held, limits = leaseCounts({ id }, { ARGV[2] })
if not held[1] or not redis.call('ZSCORE', active, id) then return 0 end
releaseSlots({ id }, limits)
if delivery >= tonumber(ARGV[4]) then
  unlockUnique(id, limits[1])
  bury(id, ARGV[5] .. ' (delivered ' .. delivery .. ' times, maxDeliveries ' .. ARGV[4] .. ')', tonumber(ARGV[3]), ARGV[6])
  return 2
end
redis.call('HINCRBY', meta, 'lost:' .. id, 1)
redis.call('ZREM', active, id)
requeueNow({ id })
return 1
