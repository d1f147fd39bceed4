-- Removes every waiting and delayed message of a queue (running ones are left to finish).
-- KEYS: the 9 queue keys.
-- ARGV: none.
-- Returns: how many were removed.
-- #include common

local removed = 0
for _, key in ipairs({ KEYS[1], KEYS[2] }) do
  local ids = redis.call('ZRANGE', key, 0, -1)
  for _, id in ipairs(ids) do forget(id) end
  removed = removed + #ids
  redis.call('DEL', key)
end
return removed
