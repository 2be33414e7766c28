-- Check a login code and consume it on success; burn it after too many misses.
-- The code is stored as an HMAC digest, so comparing digests leaks nothing about it.
-- KEYS[1] hash {digest, attempts}; ARGV[1] candidate digest; ARGV[2] max attempts
-- Returns 1 accepted (consumed), 0 wrong, -1 no live code.
local stored = redis.call('HGET', KEYS[1], 'digest')
if not stored then
  return -1
end
if stored == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
if redis.call('HINCRBY', KEYS[1], 'attempts', 1) >= tonumber(ARGV[2]) then
  redis.call('DEL', KEYS[1])
end
return 0
