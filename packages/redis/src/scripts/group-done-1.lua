-- Records that one member of a group finished; exactly one caller learns that the group completed.
-- One bit per member keeps a group of 10,000 at about 1.3 KB.
-- KEYS[1] the group's member bitmap.
-- ARGV[1] member index; ARGV[2] group size; ARGV[3] TTL (ms).
-- Returns: { members done, 1 if this call completed the group else 0, 1 if the member was already counted else 0 }.

local before = redis.call('SETBIT', KEYS[1], ARGV[1], 1)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
local done = redis.call('BITCOUNT', KEYS[1])
local completed = 0
if before == 0 and done == tonumber(ARGV[2]) then completed = 1 end
return { done, completed, before }
