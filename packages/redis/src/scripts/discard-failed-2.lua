-- Removes entries from a queue's failed-task registry.
-- KEYS: 1 failed (ZSET), 2 failed-info (HASH).
-- ARGV: ids to remove; none = all.
-- Returns: how many were removed.

local ids = ARGV
if #ids == 0 then ids = redis.call('ZRANGE', KEYS[1], 0, -1) end
local removed = 0
for _, id in ipairs(ids) do
  if redis.call('ZREM', KEYS[1], id) == 1 then
    redis.call('HDEL', KEYS[2], 'body:' .. id, 'info:' .. id)
    removed = removed + 1
  end
end
return removed
