-- Settles leased messages as done. A stale ack (the lease lapsed and the message was delivered
-- again, or it was handed back to the queue) is ignored, so it cannot remove a waiting message or
-- another worker's delivery.
-- KEYS: the 9 queue keys.
-- ARGV: n pairs of id, delivery number.
-- Returns: how many were acked.
-- #include common
-- #include flow

local ids, deliveries = idDeliveryPairs(1)
local held, limits = leaseCounts(ids, deliveries)
local leased = redis.call('ZMSCORE', active, unpack(ids))
local acked, ackedLimits, metaFields = {}, {}, {}
for i, id in ipairs(ids) do
  if held[i] and leased[i] then
    acked[#acked + 1] = id
    ackedLimits[#acked] = limits[i]
    local n = #metaFields
    metaFields[n + 1], metaFields[n + 2], metaFields[n + 3], metaFields[n + 4] = metaFieldsOf(id)
  end
end
if #acked == 0 then return 0 end
releaseSlots(acked, ackedLimits)
for i, id in ipairs(acked) do
  if ackedLimits[i] then unlockUnique(id, ackedLimits[i]) end
end
for i = 1, #acked, 1000 do
  local last = math.min(i + 999, #acked)
  redis.call('ZREM', active, unpack(acked, i, last))
  redis.call('HDEL', messages, unpack(acked, i, last))
end
callInChunks('HDEL', meta, metaFields)
return #acked
