-- Remembers a revocation until it expires, for workers that start later, and forgets revocations
-- that have expired: their ids and their details, at most 1,000 per call (each revoke prunes).
-- KEYS[1] revoked (ZSET id -> expiry, epoch ms); KEYS[2] revoked-info (HASH id -> revocation JSON).
-- ARGV[1] id; ARGV[2] expiry (epoch ms); ARGV[3] the revocation as JSON; ARGV[4] now (epoch ms).
-- Returns: how many expired revocations were forgotten.

redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[4], 'LIMIT', 0, 1000)
if #expired > 0 then
  redis.call('ZREM', KEYS[1], unpack(expired))
  redis.call('HDEL', KEYS[2], unpack(expired))
end
return #expired
