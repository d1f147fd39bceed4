-- Removes every waiting and delayed message of a queue (running ones are left to finish).
-- KEYS: the 9 queue keys.
-- ARGV: none.
-- Returns: the removed messages as a flat list: id1, body1, id2, body2, ... (a body is '' when it was gone).
-- #include common

local removed = {}
for _, key in ipairs({ ready, delayed }) do
  local ids = redis.call('ZRANGE', key, 0, -1)
  for _, id in ipairs(ids) do
    removed[#removed + 1] = id
    removed[#removed + 1] = redis.call('HGET', messages, id) or ''
    forget(id)
  end
  redis.call('DEL', key)
end
return removed
