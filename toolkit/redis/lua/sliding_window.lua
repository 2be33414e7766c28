-- Sliding-window rate limit over one or more windows of the same subject, all or nothing:
-- a request is recorded in every window only if every window has room.
-- KEYS[i]  sorted set of request times (ms) for window i
-- ARGV[1]  now in ms; ARGV[2] a unique member for this request
-- ARGV[1+2i], ARGV[2+2i]  limit and window length (ms) of window i
-- Returns {1, 0} allowed, or {0, ms until the busiest window has room}.
local now, member = tonumber(ARGV[1]), ARGV[2]
local wait = 0
for i, key in ipairs(KEYS) do
  local limit, window = tonumber(ARGV[1 + 2 * i]), tonumber(ARGV[2 + 2 * i])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local count = redis.call('ZCARD', key)
  if count >= limit then
    -- The entry that has to age out before one more request fits.
    local blocking = redis.call('ZRANGE', key, count - limit, count - limit, 'WITHSCORES')
    local w = tonumber(blocking[2]) + window - now
    if w < 1 then w = 1 end
    if w > wait then wait = w end
  end
end
if wait > 0 then
  return {0, wait}
end
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, now, member)
  redis.call('PEXPIRE', key, ARGV[2 + 2 * i])
end
return {1, 0}
