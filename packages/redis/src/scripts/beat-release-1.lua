-- Gives the beat scheduler's lease up, if the caller holds it.
-- KEYS[1] the lease.
-- ARGV[1] the caller's id.
-- Returns: 1 when it was released, 0 when the caller did not hold it.

local lease = KEYS[1]

if redis.call('GET', lease) ~= ARGV[1] then return 0 end
redis.call('DEL', lease)
return 1
