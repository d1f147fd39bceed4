-- Shared helpers, included at load time by `-- #include common`, first in every per-queue script.

-- The queue's keys (see keys.ts), in the order of QUEUE_KEYS there; the loader checks that they agree.
local ready = KEYS[1]
local delayed = KEYS[2]
local active = KEYS[3]
local messages = KEYS[4]
local meta = KEYS[5]
local seq = KEYS[6]
local marker = KEYS[7]
local dead = KEYS[8]
local deadInfo = KEYS[9]

-- Lua turns numbers into strings with 14 significant digits; scores need all of theirs.
local function num(n)
  return string.format('%.0f', n)
end

-- Calls a variadic command in slices, under Lua's limit on unpacked arguments. `args` holds pairs,
-- so the slice length is even.
local function callInChunks(command, key, args)
  for i = 1, #args, 1000 do
    redis.call(command, key, unpack(args, i, math.min(i + 999, #args)))
  end
end

-- Ready-set score: higher priority first, then the FIFO sequence (exact below 2^53).
local function readyScore(priority, sequence)
  return num((255 - priority) * 17592186044416 + sequence)
end

-- Puts ids back into the ready set with their stored priorities.
local function makeReady(ids)
  if #ids == 0 then return end
  local fields = {}
  for i, id in ipairs(ids) do fields[i] = 'priority:' .. id end
  local priorities = redis.call('HMGET', meta, unpack(fields))
  local first = redis.call('INCRBY', seq, #ids) - #ids
  local args = {}
  for i, id in ipairs(ids) do
    args[#args + 1] = readyScore(tonumber(priorities[i]) or 0, first + i)
    args[#args + 1] = id
  end
  callInChunks('ZADD', ready, args)
end

-- Splits ARGV[first..] given as pairs of id, delivery number.
local function idDeliveryPairs(first)
  local ids, deliveries = {}, {}
  for i = first, #ARGV, 2 do
    ids[#ids + 1] = ARGV[i]
    deliveries[#deliveries + 1] = ARGV[i + 1]
  end
  return ids, deliveries
end

-- True when the caller's delivery number still matches the message's (its lease was not lost).
-- Also returns each id's flow-control limits (false when none; see flow.lua), read in the same call
-- so that ending a lease costs no extra command when no limits are used.
local function leaseCounts(ids, deliveries)
  local fields, n = {}, #ids
  for i, id in ipairs(ids) do
    fields[i] = 'lost:' .. id
    fields[n + i] = 'limits:' .. id
  end
  local stored = redis.call('HMGET', meta, unpack(fields))
  local held, limits = {}, {}
  for i = 1, n do
    held[i] = (tonumber(stored[i]) or 0) + 1 == tonumber(deliveries[i])
    limits[i] = stored[n + i]
  end
  return held, limits
end

-- The metadata fields of an id (see keys.ts), for HDEL.
local function metaFieldsOf(id)
  return 'priority:' .. id, 'lost:' .. id, 'limits:' .. id, 'booked:' .. id
end

-- Removes an id's message and its metadata.
local function forget(id)
  redis.call('HDEL', messages, id)
  redis.call('HDEL', meta, metaFieldsOf(id))
end

-- How much of a body over the size limit a dead letter keeps, for the operator to see what it was.
local DEAD_PREVIEW_BYTES = 1024

-- Moves an active id to the dead-letter set with a reason; returns the body it keeps ('' if gone).
-- A body over `maxBody` bytes (no worker runs it) keeps only a preview and its size, so dead letters
-- never hold more than the limit each.
local function bury(id, reason, now, maxBody)
  local body = redis.call('HGET', messages, id) or ''
  local priority = redis.call('HGET', meta, 'priority:' .. id)
  local info = { body = body, reason = reason, at = now, priority = tonumber(priority) or 0 }
  -- Its limits go with it, so a requeued dead letter is limited again.
  local limits = redis.call('HGET', meta, 'limits:' .. id)
  if limits then info.limits = limits end
  local limit = tonumber(maxBody)
  if limit and limit > 0 and #body > limit then
    info.body = string.sub(body, 1, DEAD_PREVIEW_BYTES)
    info.size = #body
  end
  redis.call('ZREM', active, id)
  redis.call('HSET', deadInfo, id, cjson.encode(info))
  redis.call('ZADD', dead, num(now), id)
  forget(id)
  return info.body
end

-- Wakes one blocked worker: work is ready now.
local function wake()
  redis.call('ZADD', marker, 0, 'wake')
end

-- Puts ids back into the ready set and wakes a worker for them: a ready message always wakes one.
local function requeueNow(ids)
  if #ids == 0 then return end
  makeReady(ids)
  wake()
end

-- Tells one blocked worker to wake at `due` (epoch ms), unless an earlier wake-up is already set.
local function wakeAt(due)
  redis.call('ZADD', marker, 'LT', num(due), 'due')
end
