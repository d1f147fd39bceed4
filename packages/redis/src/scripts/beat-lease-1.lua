-- Takes the beat scheduler's lease when it is free, or extends it when the caller holds it.
-- KEYS[1] the lease (string: the holder's id, with the lease as its TTL).
-- ARGV[1] the caller's id; ARGV[2] the lease (ms).
-- Returns: { 1, lease } when the caller holds the lease now; { 0, ms the holder's lease has left } otherwise.

local lease = KEYS[1]

local holder = redis.call('GET', lease)
if not holder or holder == ARGV[1] then
  redis.call('SET', lease, ARGV[1], 'PX', ARGV[2])
  return { 1, tonumber(ARGV[2]) }
end
return { 0, redis.call('PTTL', lease) }
