-- Settles leased messages that failed for good and keeps them in the failed-task registry, in one
-- step: a failed task is never acked without its entry. Like `ack`, a stale ack (the lease was lost)
-- is ignored. An entry that keep-failed wrote already is left as it is. Entries past the TTL or the
-- per-queue limit are pruned.
-- KEYS: the 9 queue keys, then 10 failed (ZSET id -> epoch ms), 11 failed-info (HASH body:<id>, info:<id>).
-- ARGV: now, ttl (ms), limit, then triples of id, delivery number, failure JSON.
-- Returns: how many were acked.
-- #include common
-- #include flow

local failed = KEYS[10]
local failedInfo = KEYS[11]

local now, ttl, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local acked = 0
for i = 4, #ARGV, 3 do
  local id, delivery, failure = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local leases, limits = leaseCounts({ id }, { delivery })
  local held = leases[1]
  if held and redis.call('ZSCORE', active, id) then
    if ttl > 0 and not redis.call('ZSCORE', failed, id) then
      redis.call('HSET', failedInfo, 'body:' .. id, redis.call('HGET', messages, id) or '', 'info:' .. id, failure)
      redis.call('ZADD', failed, num(now), id)
    end
    releaseSlots({ id }, limits)
    unlockUnique(id, limits[1])
    redis.call('ZREM', active, id)
    forget(id)
    acked = acked + 1
  end
end
-- Prune: what expired, then the oldest past the limit.
local gone = redis.call('ZRANGEBYSCORE', failed, '-inf', num(now - ttl))
local over = redis.call('ZCARD', failed) - #gone - limit
if over > 0 then
  for _, id in ipairs(redis.call('ZRANGE', failed, #gone, #gone + over - 1)) do gone[#gone + 1] = id end
end
for _, id in ipairs(gone) do
  redis.call('ZREM', failed, id)
  redis.call('HDEL', failedInfo, 'body:' .. id, 'info:' .. id)
end
return acked
