-- Puts dead-lettered messages back into their queue with a fresh delivery count; one that kept only
-- a preview of its body (it was over the size limit), or whose details do not parse, stays dead.
-- KEYS: the 9 queue keys.
-- ARGV: ids to requeue; none = all.
-- Returns: how many moved.
-- #include common

local ids = ARGV
if #ids == 0 then ids = redis.call('ZRANGE', dead, 0, -1) end
local moved = {}
for _, id in ipairs(ids) do
  local info = redis.call('HGET', deadInfo, id)
  -- Details that do not parse (written by something else) leave the letter where it is.
  local ok, letter = pcall(cjson.decode, info or '')
  if ok and type(letter) == 'table' and type(letter.body) == 'string' and not letter.size then
    redis.call('HSET', messages, id, letter.body)
    if type(letter.priority) == 'number' and letter.priority > 0 then redis.call('HSET', meta, 'priority:' .. id, letter.priority) end
    if type(letter.limits) == 'string' then redis.call('HSET', meta, 'limits:' .. id, letter.limits, 'limited', 1) end
    redis.call('HDEL', deadInfo, id)
    redis.call('ZREM', dead, id)
    moved[#moved + 1] = id
  end
end
requeueNow(moved)
return #moved
