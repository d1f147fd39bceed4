-- Moves a leased message to the dead-letter set with a reason.
-- KEYS: the 9 queue keys.
-- ARGV[1] id; ARGV[2] delivery number; ARGV[3] now (epoch ms); ARGV[4] reason; ARGV[5] largest body kept whole (bytes).
-- Returns: 1 when dead-lettered, 0 when the caller no longer held the lease.
-- #include common
-- #include flow

local id = ARGV[1]
local held, limits = leaseCounts({ id }, { ARGV[2] })
if not held[1] or not redis.call('ZSCORE', active, id) then return 0 end
releaseSlots({ id }, limits)
unlockUnique(id, limits[1])
bury(id, ARGV[4], tonumber(ARGV[3]), ARGV[5])
return 1
