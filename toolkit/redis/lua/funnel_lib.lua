-- Funnel (leaky bucket), shared by the scripts that rate-limit (see scripts.py `lua`).
-- The bucket drains at a constant rate; a request adds `quota` and is refused when it
-- would overflow, so bursts up to `capacity` pass, then the rate.
-- State: hash {level, ts} at `key`. Returns allowed (1/0), ms until `quota` fits.
local function funnel(key, capacity, rate, quota, now)
  local state = redis.call('HMGET', key, 'level', 'ts')
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
  redis.call('HSET', key, 'level', tostring(level), 'ts', tostring(math.max(now, ts)))
  -- Keep the state only while the bucket is not empty.
  redis.call('PEXPIRE', key, math.ceil(level / rate) + 1000)
  return allowed, wait
end
