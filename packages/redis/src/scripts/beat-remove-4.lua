-- Removes a runtime beat entry with its last fired slot, and announces the change if there was one.
-- KEYS[1] entries; KEYS[2] slots; KEYS[3] fingerprints; KEYS[4] claimed.
-- ARGV[1] the entry's name; ARGV[2] the change channel (in the keys' slot);
-- ARGV[3] the command announcing it: PUBLISH, or SPUBLISH on a cluster (sharded pub/sub).
-- Returns: 1 when the entry existed, else 0.

local removed = redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('HDEL', KEYS[4], ARGV[1])
if removed == 1 then redis.call(ARGV[3], ARGV[2], ARGV[1]) end
return removed
