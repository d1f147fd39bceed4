-- Records that members of a group finished; exactly one caller learns that the group completed.
-- One bit per member keeps a group of 10,000 at about 1.3 KB. The members a worker settles together
-- come in one call, counted with one BITCOUNT, however many they are.
-- KEYS[1] the group's member bitmap.
-- ARGV[1] group size; ARGV[2] TTL (ms); ARGV[3..] member indices, in the order of their callers.
-- Returns: per index, in order, { members done after it, 1 if it completed the group else 0,
-- 1 if the member was already counted else 0 }, flattened.

local group = KEYS[1]

local size = tonumber(ARGV[1])
local done = redis.call('BITCOUNT', group)
local replies = {}
for i = 3, #ARGV do
  local before = redis.call('SETBIT', group, ARGV[i], 1)
  local completed = 0
  if before == 0 then
    done = done + 1
    if done == size then completed = 1 end
  end
  replies[#replies + 1] = done
  replies[#replies + 1] = completed
  replies[#replies + 1] = before
end
redis.call('PEXPIRE', group, ARGV[2])
return replies
