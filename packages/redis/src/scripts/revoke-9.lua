-- Removes a waiting or delayed message (a revoked task that has not started).
-- KEYS: the 9 queue keys.
-- ARGV[1] id.
-- Returns: the removed message's body, or 0 when it was not waiting (running, finished or unknown here).
-- #include common

local id = ARGV[1]
local removed = redis.call('ZREM', ready, id) + redis.call('ZREM', delayed, id)
if removed == 0 then return 0 end
local body = redis.call('HGET', messages, id) or ''
forget(id)
return body
