-- Stores a batch of task records, each under its key with its TTL: one call for the records a
-- worker settles together, where a SET each cost the client four times as much per record. A record
-- Redis refuses (e.g. a TTL past its clock) fails alone: the others are still stored.
-- KEYS: the records' keys (any number; on Redis Cluster they would have to share a slot).
-- ARGV: per key, in order, its record text and its TTL (ms).
-- Returns: { index, error, ... } for each refused record (1-based index into KEYS); empty when all were stored.

local refused = {}
for i = 1, #KEYS do
  local reply = redis.pcall('SET', KEYS[i], ARGV[i * 2 - 1], 'PX', ARGV[i * 2])
  if type(reply) == 'table' and reply.err then
    refused[#refused + 1] = i
    refused[#refused + 1] = reply.err
  end
end
return refused
