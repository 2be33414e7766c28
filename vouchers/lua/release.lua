-- Free a cancelled or refunded order's buyer, and give its unit back to the sale.
-- KEYS (one shard's hash tag): [1] stock, [2] buyers hash (user -> order)
-- ARGV[1] user id, ARGV[2] the order ("<seconds>:<low>"), ARGV[3] "1" to return the unit
--   ("0": a refund after the sale ended, whose unit does not go back on sale)
-- Only while the buyer's entry still names this order: a repeated release, or one
-- arriving after the buyer bought again, changes nothing.
-- Returns 1 released, 0 nothing to release.
if redis.call('HGET', KEYS[2], ARGV[1]) == ARGV[2] then
  redis.call('HDEL', KEYS[2], ARGV[1])
  if ARGV[3] == '1' and redis.call('EXISTS', KEYS[1]) == 1 then
    redis.call('INCR', KEYS[1])
  end
  return 1
end
return 0
