-- Discards dead-lettered messages for good (the operator decided they will never run).
-- KEYS: the 9 queue keys.
-- ARGV: ids to discard; none = all.
-- Returns: how many were discarded.
-- #include common

local ids = ARGV
if #ids == 0 then ids = redis.call('ZRANGE', KEYS[8], 0, -1) end
local discarded = 0
for _, id in ipairs(ids) do
  if redis.call('ZREM', KEYS[8], id) == 1 then
    redis.call('HDEL', KEYS[9], id)
    discarded = discarded + 1
  end
end
return discarded
