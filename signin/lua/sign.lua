-- Sign a user in for one day: set the day's bit and, only if it was not set yet, count
-- the day's sign-in, so the operators' per-day totals never need a scan of all users.
-- KEYS (one sign-in bucket's hash tag): [1] the user's month bitmap, [2] the bucket's
--   per-day counts hash
-- ARGV: [1] bit offset (day - 1), [2] the day (YYYYMMDD)
-- Returns 1 for a new sign-in, 0 when that day was already signed.
if redis.call('SETBIT', KEYS[1], ARGV[1], 1) == 1 then return 0 end
redis.call('HINCRBY', KEYS[2], ARGV[2], 1)
return 1
