-- Stores Celery result records of states in between (STARTED, RETRY, PROGRESS, ...), each under
-- its key with its TTL and published on the channel of the same name, as Celery's Redis backend
-- does, unless the key holds a final record (SUCCESS, FAILURE, REVOKED) already: writes arrive out
-- of order (a late STARTED of a run whose lease lapsed, a command retried after a failover), and a
-- task's outcome must not go back to running. A record that is not stored is not published either.
-- Final records are plain SETs, in the caller's MULTI: a final record always replaces another.
-- KEYS: the records' keys (any number).
-- ARGV: per key, in order, its record text (Celery's result JSON) and its TTL (ms).
-- Returns: { index, error, ... } for each record Redis refused (1-based index into KEYS); empty when
-- all were stored or kept out.

local FINAL = { SUCCESS = true, FAILURE = true, REVOKED = true }

-- True when the stored text is a Celery record of a final state (one Python pickled is not JSON: not final).
local function isFinal(text)
  local ok, meta = pcall(cjson.decode, text)
  return ok and type(meta) == 'table' and FINAL[meta.status] == true
end

local refused = {}
for i = 1, #KEYS do
  local text, ttl = ARGV[i * 2 - 1], ARGV[i * 2]
  local current = redis.call('GET', KEYS[i])
  if not (current and isFinal(current)) then
    local reply = redis.pcall('SET', KEYS[i], text, 'PX', ttl)
    if type(reply) == 'table' and reply.err then
      refused[#refused + 1] = i
      refused[#refused + 1] = reply.err
    else
      redis.call('PUBLISH', KEYS[i], text)
    end
  end
end
return refused
