-- Store a value built from a read made at version ARGV[1], unless a write has bumped the
-- version since (then the value may be stale, and storing it could hide the write).
-- KEYS: [1] where to store, [2] the version counter, [3] optional page index
-- ARGV: [1] version seen before the read ('' if none), [2] value, [3] TTL (s),
--   [4] page number (with KEYS[3]: the value is stored as a page hash {v, data})
-- Returns 1 when stored, 0 when refused.
if (redis.call('GET', KEYS[2]) or '') ~= ARGV[1] then return 0 end
if not KEYS[3] then
  redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
  return 1
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'data', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('SADD', KEYS[3], ARGV[4])
-- The index lives at least as long as every page it lists (page_read.lua renews it too).
if redis.call('TTL', KEYS[3]) < tonumber(ARGV[3]) then redis.call('EXPIRE', KEYS[3], ARGV[3]) end
return 1
