-- Forgets the claim of an entry's slot once its task reached the broker (a later claim stays), so a
-- scheduler that takes over does not send it again.
-- KEYS[1] slots (hash: name -> last fired slot); KEYS[2] claimed (hash: name -> when that slot was claimed).
-- ARGV[1] the entry's name; ARGV[2] the slot (epoch ms).

local slots = KEYS[1]
local claimed = KEYS[2]

if redis.call('HGET', slots, ARGV[1]) == ARGV[2] then redis.call('HDEL', claimed, ARGV[1]) end
return 0
