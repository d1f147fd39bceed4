-- Returns messages whose lease lapsed (their worker died or hung) to the queue, counting the lost
-- delivery, or dead-letters those delivered `maxDeliveries` times.
-- KEYS: the 9 queue keys.
-- ARGV[1] now (epoch ms); ARGV[2] maxDeliveries; ARGV[3] most messages to handle; ARGV[4] largest
-- body a dead letter keeps whole (bytes).
-- Returns: { requeued ids, { id, body, reason, at, ... } of dead-lettered ones }.
-- #include common
-- #include flow

local now = tonumber(ARGV[1])
local max = tonumber(ARGV[2])
local lapsed = redis.call('ZRANGEBYSCORE', active, '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
local requeued, buried = {}, {}
if #lapsed > 0 then
  local fields = {}
  for i, id in ipairs(lapsed) do fields[i] = 'limits:' .. id end
  releaseSlots(lapsed, redis.call('HMGET', meta, unpack(fields)))
end
for _, id in ipairs(lapsed) do
  local delivery = (tonumber(redis.call('HGET', meta, 'lost:' .. id)) or 0) + 1
  if delivery >= max then
    local reason = 'lease lapsed ' .. delivery .. ' times (maxDeliveries ' .. max .. '); its workers died or hung'
    local body = bury(id, reason, now, ARGV[4])
    buried[#buried + 1] = id
    buried[#buried + 1] = body
    buried[#buried + 1] = reason
    buried[#buried + 1] = ARGV[1]
  else
    redis.call('HINCRBY', meta, 'lost:' .. id, 1)
    redis.call('ZREM', active, id)
    requeued[#requeued + 1] = id
  end
end
requeueNow(requeued)
return { requeued, buried }
