-- Discards dead-lettered messages for good (the operator decided they will never run).
-- KEYS: the 9 queue keys.
-- ARGV: ids to discard; none = all.
-- Returns: how many were discarded.
-- #include common

local ids = ARGV
if #ids == 0 then ids = redis.call('ZRANGE', dead, 0, -1) end
local discarded = 0
for _, id in ipairs(ids) do
  if redis.call('ZREM', dead, id) == 1 then
    redis.call('HDEL', deadInfo, id)
    discarded = discarded + 1
  end
end
return discarded
