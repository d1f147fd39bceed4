-- Stores a batch of task records, each under its key with its TTL: one call for the records a
-- worker settles together, where a SET each cost the client four times as much per record.
-- KEYS: the records' keys (any number; on Redis Cluster they would have to share a slot).
-- ARGV: per key, in order, its record text and its TTL (ms).
-- Returns: the number of records stored.

for i = 1, #KEYS do
  redis.call('SET', KEYS[i], ARGV[i * 2 - 1], 'PX', ARGV[i * 2])
end
return #KEYS
