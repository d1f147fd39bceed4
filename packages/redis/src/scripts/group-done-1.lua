-- Records that one member of a group finished; exactly one caller learns that the group completed.
-- KEYS[1] the group's member set.
-- ARGV[1] member index; ARGV[2] group size; ARGV[3] TTL (ms).
-- Returns: { members done, 1 if this call completed the group else 0 }.

local added = redis.call('SADD', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
local done = redis.call('SCARD', KEYS[1])
local completed = 0
if added == 1 and done == tonumber(ARGV[2]) then completed = 1 end
return { done, completed }
