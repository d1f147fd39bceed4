-- Takes the beat scheduler's lease when it is free, or extends it when the caller holds it.
-- KEYS[1] the lease (string: the holder's id, with the lease as its TTL).
-- ARGV[1] the caller's id; ARGV[2] the lease (ms).
-- Returns: { 1, lease } when the caller holds the lease now; { 0, ms the holder's lease has left } otherwise.

local holder = redis.call('GET', KEYS[1])
if not holder or holder == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return { 1, tonumber(ARGV[2]) }
end
return { 0, redis.call('PTTL', KEYS[1]) }
