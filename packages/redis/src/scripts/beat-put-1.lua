-- Adds or replaces a runtime beat entry and announces the change to running schedulers.
-- KEYS[1] entries (hash: name -> JSON entry).
-- ARGV[1] the entry's name; ARGV[2] its JSON; ARGV[3] the change channel.
-- Returns: 1.

redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PUBLISH', ARGV[3], ARGV[1])
return 1
