-- Resumes a paused queue: clears its mark and wakes a blocked worker (which passes the wake-up on
-- while more are ready).
-- KEYS: the 9 queue keys.
-- ARGV: none.
-- Returns: 1 when the queue was paused, else 0.
-- #include common

local was = redis.call('HDEL', meta, 'paused')
wake()
return was
