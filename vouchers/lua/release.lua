-- Give a cancelled order's unit back to the sale and let its buyer buy again.
-- KEYS (one shard's hash tag): [1] stock, [2] buyers hash (user -> order)
-- ARGV[1] user id, ARGV[2] the cancelled order ("<seconds>:<low>")
-- Only while the buyer's entry still names this order: a repeated release, or one
-- arriving after the buyer bought again, changes nothing.
-- Returns 1 released, 0 nothing to release.
if redis.call('HGET', KEYS[2], ARGV[1]) == ARGV[2] then
  redis.call('HDEL', KEYS[2], ARGV[1])
  if redis.call('EXISTS', KEYS[1]) == 1 then
    redis.call('INCR', KEYS[1])
  end
  return 1
end
return 0
