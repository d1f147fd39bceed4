-- Puts dead-lettered messages back into their queue with a fresh delivery count; one that kept only
-- a preview of its body (it was over the size limit), or whose details do not parse, stays dead.
-- KEYS: the 9 queue keys.
-- ARGV: ids to requeue; none = all.
-- Returns: how many moved.
-- #include common

local ids = ARGV
if #ids == 0 then ids = redis.call('ZRANGE', KEYS[8], 0, -1) end
local moved = {}
for _, id in ipairs(ids) do
  local info = redis.call('HGET', KEYS[9], id)
  -- Details that do not parse (written by something else) leave the letter where it is.
  local ok, dead = pcall(cjson.decode, info or '')
  if ok and type(dead) == 'table' and type(dead.body) == 'string' and not dead.size then
    redis.call('HSET', KEYS[4], id, dead.body)
    if type(dead.priority) == 'number' and dead.priority > 0 then redis.call('HSET', KEYS[5], 'priority:' .. id, dead.priority) end
    if type(dead.limits) == 'string' then redis.call('HSET', KEYS[5], 'limits:' .. id, dead.limits, 'limited', 1) end
    redis.call('HDEL', KEYS[9], id)
    redis.call('ZREM', KEYS[8], id)
    moved[#moved + 1] = id
  end
end
requeueNow(moved)
return #moved
