-- Removes entries from a queue's failed-task registry.
-- KEYS: 1 failed (ZSET), 2 failed-info (HASH).
-- ARGV: ids to remove; none = all.
-- Returns: how many were removed.

local failed = KEYS[1]
local failedInfo = KEYS[2]

local ids = ARGV
if #ids == 0 then ids = redis.call('ZRANGE', failed, 0, -1) end
local removed = 0
for _, id in ipairs(ids) do
  if redis.call('ZREM', failed, id) == 1 then
    redis.call('HDEL', failedInfo, 'body:' .. id, 'info:' .. id)
    removed = removed + 1
  end
end
return removed
