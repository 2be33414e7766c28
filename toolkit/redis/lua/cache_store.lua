-- Store a rebuilt cache entry unless it was evicted while the loader ran.
-- KEYS[1] the entry; KEYS[2] its version counter (bumped by every eviction)
-- ARGV[1] the version read before loading ("0" when there was none)
-- ARGV[2] "plain" (a string with a TTL) or "logical" (a hash {data, expire_at})
-- ARGV[3] the value; ARGV[4] TTL in ms (plain: always; logical: 0 = keep forever)
-- ARGV[5] logical expiry as Unix seconds (logical only)
-- Returns 1 stored, 0 skipped (a writer evicted the key after our load began).
if (redis.call('GET', KEYS[2]) or '0') ~= ARGV[1] then
  return 0
end
if ARGV[2] == 'plain' then
  redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
else
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[1], 'data', ARGV[3], 'expire_at', ARGV[5])
  if tonumber(ARGV[4]) > 0 then
    redis.call('PEXPIRE', KEYS[1], ARGV[4])
  end
end
return 1
