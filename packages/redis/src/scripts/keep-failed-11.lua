-- Writes the failed-task registry entries of leased messages that failed for good, before their
-- FAILURE record is stored: whoever sees the failure finds the entry. The ack that follows settles
-- them (see ack-failed). Only a delivery that still holds its lease writes, so a lost run does not.
-- KEYS: the 9 queue keys, then 10 failed (ZSET id -> epoch ms), 11 failed-info (HASH body:<id>, info:<id>).
-- ARGV: now, then triples of id, delivery number, failure JSON.
-- Returns: how many entries were written.
-- #include common

local failed = KEYS[10]
local failedInfo = KEYS[11]

local now = ARGV[1]
local written = 0
for i = 2, #ARGV, 3 do
  local id, delivery, failure = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local held = leaseCounts({ id }, { delivery })[1]
  if held and redis.call('ZSCORE', active, id) then
    redis.call('HSET', failedInfo, 'body:' .. id, redis.call('HGET', messages, id) or '', 'info:' .. id, failure)
    redis.call('ZADD', failed, now, id)
    written = written + 1
  end
end
return written
