-- Remembers a revocation until it expires, for workers that start later, and forgets revocations
-- that have expired: their ids and their details, at most 1,000 per call (each revoke prunes).
-- KEYS[1] revoked (ZSET id -> expiry, epoch ms); KEYS[2] revoked-info (HASH id -> revocation JSON).
-- ARGV[1] id; ARGV[2] expiry (epoch ms); ARGV[3] the revocation as JSON; ARGV[4] now (epoch ms).
-- Returns: how many expired revocations were forgotten.

local revoked = KEYS[1]
local revokedInfo = KEYS[2]

redis.call('ZADD', revoked, ARGV[2], ARGV[1])
redis.call('HSET', revokedInfo, ARGV[1], ARGV[3])
local expired = redis.call('ZRANGEBYSCORE', revoked, '-inf', ARGV[4], 'LIMIT', 0, 1000)
if #expired > 0 then
  redis.call('ZREM', revoked, unpack(expired))
  redis.call('HDEL', revokedInfo, unpack(expired))
end
return #expired
