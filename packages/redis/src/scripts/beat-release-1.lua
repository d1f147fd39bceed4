-- Gives the beat scheduler's lease up, if the caller holds it.
-- KEYS[1] the lease.
-- ARGV[1] the caller's id.
-- Returns: 1 when it was released, 0 when the caller did not hold it.

if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
