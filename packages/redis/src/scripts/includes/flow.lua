-- Flow control, included after common by the scripts that lease or end leases: concurrency slots
-- tied to leases, and GCRA rate budgets. A message published with limits has them as JSON in the
-- meta field `limits:<id>` ({ task, rate?: { limit, per, burst, key }, concurrency?: { limit, key } });
-- the meta field `limited` marks a queue that ever had such a message, so reserve in the others
-- reads no limits; scripts that end a lease read `limits:<id>` with the delivery check (leaseCounts).
-- Keys of a scope share the queue's hash tag (`ready` is `<prefix>:{<prefix>:<queue>}:ready`):
--   slots:<scope>   SET    ids holding a slot (each under a lease)
--   waiting:<scope> LIST   ids held for a slot, oldest first (a removed id is skipped when popped)
--   rate:<scope>    STRING the GCRA theoretical arrival time (epoch ms), expiring once it has passed
--   unique:<key>    STRING the id of the unique task holding the key (with the lock's ttl)
--   debounce:<key>  STRING the id of the task waiting out the key's debounce window

local QUEUE_BASE = string.sub(ready, 1, -7)
-- The delayed score of a task held for a slot: a release wakes it, never the clock (2^52 ms).
local HELD = 4503599627370496

local function flowKey(kind, scope)
  return QUEUE_BASE .. ':' .. kind .. ':' .. scope
end

-- Books the next start of a rate scope (GCRA); returns when it may start. A held task keeps its
-- booking (`booked:<id>`), so it starts when it comes due without being counted twice.
local function takeToken(id, limits, now)
  if redis.call('HDEL', meta, 'booked:' .. id) == 1 then return now end
  local rate = limits.rate
  local limit, per, burst = rate.limit, rate.per, rate.burst
  local setting = redis.call('HGET', meta, 'rate-limit:' .. limits.task)
  if setting then
    local changed = cjson.decode(setting)
    limit, per, burst = changed.limit, changed.per, changed.burst
  end
  local interval = per / limit
  local key = flowKey('rate', rate.key)
  local arrival = math.max(tonumber(redis.call('GET', key)) or now, now)
  redis.call('SET', key, string.format('%.3f', arrival + interval), 'PX', math.ceil(arrival + interval - now) + 1000)
  local due = math.ceil(arrival - (burst - 1) * interval)
  if due > now then redis.call('HSET', meta, 'booked:' .. id, 1) end
  return due
end

-- Nil when `id` may start now (its slot is taken); otherwise until when to hold it (HELD: a slot).
local function admit(id, limits, now)
  local concurrency = limits.concurrency
  local slots
  if concurrency then
    slots = flowKey('slots', concurrency.key)
    if redis.call('SISMEMBER', slots, id) == 0 and redis.call('SCARD', slots) >= concurrency.limit then
      redis.call('RPUSH', flowKey('waiting', concurrency.key), id)
      return HELD
    end
  end
  if limits.rate then
    local due = takeToken(id, limits, now)
    if due > now then return due end
  end
  if slots then redis.call('SADD', slots, id) end
  return nil
end

-- The id of the task holding `unique`'s key while it is alive (its message still stored; running,
-- for a 'running' lock), or nil. A lock whose holder ended (acked, revoked, purged, dead-lettered)
-- is ignored even if its release was missed, so a lock never outlives its task. `seen` holds ids
-- published earlier in the same script call.
local function uniqueHolder(unique, seen)
  local holder = redis.call('GET', flowKey('unique', unique.key))
  if not holder then return nil end
  -- A throttle's window holds whatever became of its task.
  if unique['while'] == 'window' then return holder end
  if unique['while'] == 'running' then
    if redis.call('ZSCORE', active, holder) then return holder end
  elseif seen[holder] or redis.call('HEXISTS', messages, holder) == 1 then
    return holder
  end
  return nil
end

-- Takes unique lock `unique` for `id` (over a stale holder).
local function lockUnique(id, unique)
  redis.call('SET', flowKey('unique', unique.key), id, 'PX', unique.ttl)
end

-- Releases the unique lock `id` holds, if it still does; `stored` is its `limits:<id>` field (or false).
local function unlockUnique(id, stored)
  local unique = stored and cjson.decode(stored).unique
  if not unique or unique['while'] == 'window' then return end
  local lock = flowKey('unique', unique.key)
  if redis.call('GET', lock) == id then redis.call('DEL', lock) end
end

-- The id of the task waiting out `debounce`'s window: delayed, not held for a slot or a booked rate
-- token (it left its wait when it came due), and not leased (reserve ends the window); else nil.
-- `fresh` holds the ids opening a window earlier in the same script call.
local function debounceHolder(debounce, fresh)
  local holder = redis.call('GET', flowKey('debounce', debounce.key))
  if not holder or fresh[holder] then return holder end
  local due = tonumber(redis.call('ZSCORE', delayed, holder))
  if due and due < HELD and redis.call('HEXISTS', meta, 'booked:' .. holder) == 0 then return holder end
  return nil
end

-- Makes `id`, due at `eta`, the task that sends of `debounce`'s key collapse into; the lock outlives
-- the start by a window, and is only honoured while the task waits (see debounceHolder).
local function lockDebounce(id, debounce, eta, now)
  redis.call('SET', flowKey('debounce', debounce.key), id, 'PX', math.max(eta - now, 0) + debounce.window)
end

-- Ends `debounce`'s window if `id` holds it (it was leased).
local function unlockDebounce(id, debounce)
  local lock = flowKey('debounce', debounce.key)
  if redis.call('GET', lock) == id then redis.call('DEL', lock) end
end

-- Frees the slots of these ids (their leases ended) and makes the oldest held task of each freed
-- scope ready. `stored` holds their `limits:<id>` fields (false where none), as leaseCounts reads them.
local function releaseSlots(ids, stored)
  for i, id in ipairs(ids) do
    local concurrency = stored[i] and cjson.decode(stored[i]).concurrency
    if concurrency and redis.call('SREM', flowKey('slots', concurrency.key), id) == 1 then
      local waiting = flowKey('waiting', concurrency.key)
      local held = redis.call('LPOP', waiting)
      while held do
        if tonumber(redis.call('ZSCORE', delayed, held)) == HELD then
          redis.call('ZREM', delayed, held)
          requeueNow({ held })
          break
        end
        held = redis.call('LPOP', waiting)
      end
    end
  end
end
