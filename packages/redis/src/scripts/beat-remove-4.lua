-- Removes a runtime beat entry with its last fired slot, and announces the change if there was one.
-- KEYS[1] entries; KEYS[2] slots; KEYS[3] fingerprints; KEYS[4] claimed.
-- ARGV[1] the entry's name; ARGV[2] the change channel (in the keys' slot);
-- ARGV[3] the command announcing it: PUBLISH, or SPUBLISH on a cluster (sharded pub/sub).
-- Returns: 1 when the entry existed, else 0.

local entries = KEYS[1]
local slots = KEYS[2]
local fingerprints = KEYS[3]
local claimed = KEYS[4]

local removed = redis.call('HDEL', entries, ARGV[1])
redis.call('HDEL', slots, ARGV[1])
redis.call('HDEL', fingerprints, ARGV[1])
redis.call('HDEL', claimed, ARGV[1])
if removed == 1 then redis.call(ARGV[3], ARGV[2], ARGV[1]) end
return removed
