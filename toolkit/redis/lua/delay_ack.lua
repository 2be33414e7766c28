-- Finish a claimed job, only for the claim that holds it now.
-- KEYS[1] leased set; ARGV[1] member; ARGV[2] the claim's token (its lease expiry, ms)
-- Returns 1 done, 0 the lease had run out (and the job may belong to another claim).
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return 1
end
return 0
