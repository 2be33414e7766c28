-- Leave a lock once. Only its owner may do so: an expired holder whose lease
-- passed to someone else gets -1 and changes nothing.
-- KEYS[1] lock hash; ARGV[1] owner token; ARGV[2] lease in ms (kept while still re-entered).
-- Returns -1 not the owner, 0 still held (re-entered), 1 released.
local key, owner, lease = KEYS[1], ARGV[1], ARGV[2]
if redis.call('HEXISTS', key, owner) == 0 then
  return -1
end
if redis.call('HINCRBY', key, owner, -1) > 0 then
  redis.call('PEXPIRE', key, lease)
  return 0
end
redis.call('DEL', key)
return 1
