-- Store a value built from a read made at version ARGV[1], unless a write has bumped the
-- version since (then the value may be stale, and storing it could hide the write).
-- KEYS: [1] where to store, [2] the version counter, [3] optional set to add ARGV[4] to
-- ARGV: [1] version seen before the read ('' if none), [2] value, [3] TTL (s), [4] member
-- Returns 1 when stored, 0 when refused.
if (redis.call('GET', KEYS[2]) or '') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
if KEYS[3] then
  redis.call('SADD', KEYS[3], ARGV[4])
  -- The index outlives every page it lists, and goes once they all have.
  if redis.call('TTL', KEYS[3]) < tonumber(ARGV[3]) then redis.call('EXPIRE', KEYS[3], ARGV[3]) end
end
return 1
