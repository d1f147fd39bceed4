-- Takes up to `count` Celery messages from kombu queue lists and holds each in kombu's ack emulation
-- (the `unacked` hash and the `unacked_index` set) in the same step, so a worker that dies right
-- after the pop loses nothing: any Celery or Celeriac worker restores it after the visibility
-- timeout. The stored entry is `[payload, exchange, routing key]`, as kombu writes it; the payload
-- text is kept as it came (decoding and encoding it in Lua would turn empty lists into objects).
-- KEYS[1] unacked; KEYS[2] unacked_index; KEYS[3..] the queue lists, in the order to drain them.
-- ARGV[1] count; ARGV[2] now (epoch seconds, as kombu scores); ARGV[3] a message a blocking wait
-- already popped ('' when none); ARGV[4] the index in KEYS[3..] of its list; ARGV[5..] the queue
-- name of each list (the routing key of a message that names none).
-- Returns: { list index 1, payload 1, list index 2, payload 2, ... }.

local unacked = KEYS[1]
local unackedIndex = KEYS[2]

local count = tonumber(ARGV[1])
local now = ARGV[2]
local out = {}

local function text(value, fallback)
  if type(value) == 'string' then return value end
  return fallback
end

local function hold(raw, index)
  local ok, message = pcall(cjson.decode, raw)
  local queue = ARGV[4 + index]
  if ok and type(message) == 'table' and type(message.properties) == 'table' then
    local tag = message.properties.delivery_tag
    local info = message.properties.delivery_info
    local exchange, routingKey = '', queue
    if type(info) == 'table' then
      exchange = text(info.exchange, '')
      routingKey = text(info.routing_key, queue)
    end
    if type(tag) == 'string' then
      redis.call('ZADD', unackedIndex, now, tag)
      redis.call('HSET', unacked, tag, '[' .. raw .. ',' .. cjson.encode(exchange) .. ',' .. cjson.encode(routingKey) .. ']')
    end
  end
  -- A message without a delivery tag is handed out unheld: the worker dead-letters it.
  out[#out + 1] = index
  out[#out + 1] = raw
end

if ARGV[3] ~= '' then
  hold(ARGV[3], tonumber(ARGV[4]))
  count = count - 1
end

for index = 1, #KEYS - 2 do
  while count > 0 do
    local raw = redis.call('RPOP', KEYS[2 + index])
    if not raw then break end
    hold(raw, index)
    count = count - 1
  end
  if count <= 0 then break end
end
return out
