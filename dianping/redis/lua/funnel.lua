-- Funnel (leaky bucket): the bucket drains at a constant rate; a request adds `quota`
-- and is refused when it would overflow, so bursts up to `capacity` pass, then the rate.
-- KEYS[1] hash {level, ts}
-- ARGV[1] capacity; ARGV[2] leak per ms; ARGV[3] quota; ARGV[4] now in ms
-- Returns {1, 0} allowed, or {0, ms until `quota` fits}.
local capacity, rate = tonumber(ARGV[1]), tonumber(ARGV[2])
local quota, now = tonumber(ARGV[3]), tonumber(ARGV[4])
local state = redis.call('HMGET', KEYS[1], 'level', 'ts')
local level = tonumber(state[1]) or 0
local ts = tonumber(state[2]) or now
-- A clock that steps back must not refill the bucket.
local elapsed = math.max(0, now - ts)
level = math.max(0, level - elapsed * rate)
local allowed, wait = 0, 0
-- The epsilon absorbs float residue such as 4.9999999 after partial leaks.
if level + quota <= capacity + 1e-9 then
  level = level + quota
  allowed = 1
else
  wait = math.ceil((level + quota - capacity) / rate)
end
redis.call('HSET', KEYS[1], 'level', tostring(level), 'ts', tostring(math.max(now, ts)))
-- Keep the state only while the bucket is not empty.
redis.call('PEXPIRE', KEYS[1], math.ceil(level / rate) + 1000)
return {allowed, wait}
