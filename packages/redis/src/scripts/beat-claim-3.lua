-- As lease holder, makes a slot an entry's last fired slot if it is later than the stored one, and
-- records when it was claimed: the one step that decides whether a slot fires, so a slot is claimed
-- once (the next leader sends a recent claimed slot again when its task left no record).
-- KEYS[1] the lease; KEYS[2] slots (hash: name -> last fired slot); KEYS[3] claimed (hash: name -> when that slot was claimed).
-- ARGV[1] the caller's id; ARGV[2] the entry's name; ARGV[3] the slot (epoch ms); ARGV[4] now (epoch ms, the caller's clock).
-- Returns: 1 claimed (fire it); 0 stale (this slot or a later one was fired); -1 the caller does not hold the lease.

local lease = KEYS[1]
local slots = KEYS[2]
local claimed = KEYS[3]

if redis.call('GET', lease) ~= ARGV[1] then return -1 end
local last = tonumber(redis.call('HGET', slots, ARGV[2]))
if last and last >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', slots, ARGV[2], ARGV[3])
redis.call('HSET', claimed, ARGV[2], ARGV[4])
return 1
