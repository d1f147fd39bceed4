-- Returns one lapsed Celery message from kombu's ack emulation to its queue, if it is still the same
-- entry and still lapsed (compare and set: a worker may have acknowledged or renewed it meanwhile,
-- and a Python worker restores the same way). Pushed on the right end, where workers pop first, as
-- kombu restores.
-- KEYS[1] unacked; KEYS[2] unacked_index; KEYS[3] the queue list to return it to.
-- ARGV[1] delivery tag; ARGV[2] the `unacked` entry as read; ARGV[3] the lapse ceiling (epoch
-- seconds: restored only if delivered or renewed before it); ARGV[4] the payload to push.
-- Returns 1 when restored, 0 when the entry changed or is no longer lapsed.

local unacked = KEYS[1]
local unackedIndex = KEYS[2]
local queue = KEYS[3]

local entry = redis.call('HGET', unacked, ARGV[1])
if entry ~= ARGV[2] then return 0 end
local score = redis.call('ZSCORE', unackedIndex, ARGV[1])
if score and tonumber(score) > tonumber(ARGV[3]) then return 0 end
redis.call('HDEL', unacked, ARGV[1])
redis.call('ZREM', unackedIndex, ARGV[1])
redis.call('RPUSH', queue, ARGV[4])
return 1
