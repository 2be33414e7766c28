-- Set a user's all-time sign-in total to the bits of their month bitmaps (the repair of
-- `manage.py recount_signins`): read and written in one step, so a sign-in running beside
-- it is either in the sum or counted after it, never lost.
-- KEYS (one user's hash tag): [1] the user's all-time total, [2..] their month bitmaps
-- Returns the total.
local total = 0
for i = 2, #KEYS do
  total = total + redis.call('BITCOUNT', KEYS[i])
end
redis.call('SET', KEYS[1], total)
return total
