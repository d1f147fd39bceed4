-- Pushes the lease deadline of running messages forward (only leases the caller still holds).
-- KEYS: the 9 queue keys.
-- ARGV[1] new deadline (epoch ms); then pairs of id, delivery number.
-- Returns: how many leases were extended.
-- #include common

local ids, deliveries = idDeliveryPairs(2)
local held = leaseCounts(ids, deliveries)
local args = {}
for i, id in ipairs(ids) do
  if held[i] then
    args[#args + 1] = ARGV[1]
    args[#args + 1] = id
  end
end
if #args == 0 then return 0 end
for i = 1, #args, 1000 do
  redis.call('ZADD', active, 'XX', unpack(args, i, math.min(i + 999, #args)))
end
return #args / 2
