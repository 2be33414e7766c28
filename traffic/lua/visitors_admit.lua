-- Which of an address's anonymous visitor ids count as themselves today: those already
-- counted, and new ones while the address has fewer than the cap; the others count as the
-- address (traffic/visits.py). One key: the address's set of ids of the day.
-- KEYS[1] the set; ARGV[1] the cap; ARGV[2] the set's TTL, seconds; ARGV[3..] the ids.
-- Returns 1 (counts as itself) or 0 (as the address) for each id, in order.
local cap = tonumber(ARGV[1])
local size = redis.call('SCARD', KEYS[1])
local verdicts = {}
for i = 3, #ARGV do
  if redis.call('SISMEMBER', KEYS[1], ARGV[i]) == 1 then
    verdicts[#verdicts + 1] = 1
  elseif size < cap then
    redis.call('SADD', KEYS[1], ARGV[i])
    size = size + 1
    verdicts[#verdicts + 1] = 1
  else
    verdicts[#verdicts + 1] = 0
  end
end
redis.call('EXPIRE', KEYS[1], ARGV[2])
return verdicts
