-- Take or re-enter a lock.
-- KEYS[1] lock hash {owner: depth}; ARGV[1] owner token; ARGV[2] lease in ms.
-- Returns {1, depth} when held by this owner now, {0, pttl} when someone else holds it.
local key, owner, lease = KEYS[1], ARGV[1], ARGV[2]
if redis.call('EXISTS', key) == 0 or redis.call('HEXISTS', key, owner) == 1 then
  local depth = redis.call('HINCRBY', key, owner, 1)
  redis.call('PEXPIRE', key, lease)
  return {1, depth}
end
return {0, redis.call('PTTL', key)}
