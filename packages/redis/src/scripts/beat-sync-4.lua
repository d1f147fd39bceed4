-- As lease holder, reconciles the last fired slots with the scheduler's entries: an entry without
-- a slot, or whose schedule changed (another fingerprint), starts at its `since` (a starting point,
-- not a claim); the slots of entries no longer listed are dropped.
-- KEYS[1] the lease; KEYS[2] slots (hash: name -> last fired slot); KEYS[3] fingerprints (hash: name -> fingerprint);
-- KEYS[4] claimed (hash: name -> when the slot in KEYS[2] was claimed; absent for a starting point).
-- ARGV[1] the caller's id; then triples: ARGV[i] name, ARGV[i+1] fingerprint, ARGV[i+2] since (epoch ms).
-- Returns: the last slot of each listed entry, in order; or -1 when the caller does not hold the lease.

local lease = KEYS[1]
local slots = KEYS[2]
local fingerprints = KEYS[3]
local claimed = KEYS[4]

if redis.call('GET', lease) ~= ARGV[1] then return -1 end
local listed = {}
local lastSlots = {}
for i = 2, #ARGV, 3 do
  local name, fingerprint, since = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  listed[name] = true
  local last = redis.call('HGET', slots, name)
  if not last or redis.call('HGET', fingerprints, name) ~= fingerprint then
    redis.call('HSET', slots, name, since)
    redis.call('HSET', fingerprints, name, fingerprint)
    redis.call('HDEL', claimed, name)
    last = since
  end
  lastSlots[#lastSlots + 1] = last
end
for _, key in ipairs({ slots, fingerprints, claimed }) do
  for _, name in ipairs(redis.call('HKEYS', key)) do
    if not listed[name] then redis.call('HDEL', key, name) end
  end
end
return lastSlots
