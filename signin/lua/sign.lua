-- Sign a user in for one day: set the day's bit and, only if it was not set yet, count
-- the day's sign-in (the operators' per-day totals never need a scan of all users) and
-- the user's all-time total (exact across months, decision 494).
-- KEYS (one sign-in bucket's hash tag): [1] the user's month bitmap, [2] the bucket's
--   per-day counts hash, [3] the user's all-time total
-- ARGV: [1] bit offset (day - 1), [2] the day (YYYYMMDD)
-- Returns {1 for a new sign-in or 0 when that day was already signed, the days signed
-- in the month (BITCOUNT), the all-time total, 1 if the total existed before this call}.
-- A missing total (a user who signed before totals were kept, or a total Redis lost) is
-- not started at 0 here: the caller recounts it from the bitmaps (recount.lua).
local had_total = redis.call('EXISTS', KEYS[3])
local new = 0
if redis.call('SETBIT', KEYS[1], ARGV[1], 1) == 0 then
  new = 1
  redis.call('HINCRBY', KEYS[2], ARGV[2], 1)
  if had_total == 1 then
    redis.call('INCR', KEYS[3])
  end
end
return {new, redis.call('BITCOUNT', KEYS[1]), tonumber(redis.call('GET', KEYS[3]) or '0'), had_total}
