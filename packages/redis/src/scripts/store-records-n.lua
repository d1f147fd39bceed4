-- Stores a batch of task records, each under its key with its TTL: one call for the records a
-- worker settles together, where a SET each cost the client four times as much per record. A record
-- Redis refuses (e.g. a TTL past its clock) fails alone: the others are still stored.
-- A record of a state in between (STARTED, PROGRESS, RETRY, ...) never replaces a final one
-- (SUCCESS, FAILURE, REVOKED): writes can arrive out of order (a command retried after a failover,
-- a late write of a run whose lease lapsed), and a task's outcome must not go back to running.
-- KEYS: the records' keys (any number; on Redis Cluster they would have to share a slot).
-- ARGV: per key, in order, its record text, its TTL (ms), and 1 if the record is final, else 0.
-- Returns: { index, error, ... } for each refused record (1-based index into KEYS); empty when all were stored.

local FINAL = { SUCCESS = true, FAILURE = true, REVOKED = true }

-- True when the stored record text holds a final state (records are superjson: { json = record }).
local function isFinal(text)
  local ok, doc = pcall(cjson.decode, text)
  return ok and type(doc) == 'table' and type(doc.json) == 'table' and FINAL[doc.json.state] == true
end

local refused = {}
for i = 1, #KEYS do
  local text, ttl, final = ARGV[i * 3 - 2], ARGV[i * 3 - 1], ARGV[i * 3]
  local current = final == '0' and redis.call('GET', KEYS[i]) or false
  if not (current and isFinal(current)) then
    local reply = redis.pcall('SET', KEYS[i], text, 'PX', ttl)
    if type(reply) == 'table' and reply.err then
      refused[#refused + 1] = i
      refused[#refused + 1] = reply.err
    end
  end
end
return refused
