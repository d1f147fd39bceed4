-- Adds or replaces a runtime beat entry and announces the change to running schedulers.
-- KEYS[1] entries (hash: name -> JSON entry).
-- ARGV[1] the entry's name; ARGV[2] its JSON; ARGV[3] the change channel (in KEYS[1]'s slot);
-- ARGV[4] the command announcing it: PUBLISH, or SPUBLISH on a cluster (sharded pub/sub).
-- Returns: 1.

local entries = KEYS[1]

redis.call('HSET', entries, ARGV[1], ARGV[2])
redis.call(ARGV[4], ARGV[3], ARGV[1])
return 1
