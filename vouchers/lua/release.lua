-- Give a cancelled order's unit back to the sale and let its buyer buy again.
-- KEYS (one shard's hash tag): [1] stock, [2] buyers set; ARGV[1] user id
-- Only a buyer still in the set returns a unit, so a repeated release changes nothing.
-- Returns 1 released, 0 already released.
if redis.call('SREM', KEYS[2], ARGV[1]) == 1 then
  if redis.call('EXISTS', KEYS[1]) == 1 then
    redis.call('INCR', KEYS[1])
  end
  return 1
end
return 0
