-- Load a sale's stock from the database without ever resurrecting sold units.
-- KEYS (one shard's hash tag): [1] stock, [2] buyers hash
-- ARGV[1] units, ARGV[2] "pending" (overwrite unless a unit was already taken)
--   or "active" (set only if absent)
-- Returns "overwritten", "set", "kept" (an active sale's stock exists) or "sold" (units
-- already taken: a pending-looking sale that has in fact started; left alone).
if ARGV[2] == 'pending' then
  if redis.call('EXISTS', KEYS[2]) == 1 then return 'sold' end
  redis.call('SET', KEYS[1], ARGV[1])
  return 'overwritten'
end
if redis.call('SET', KEYS[1], ARGV[1], 'NX') then return 'set' end
return 'kept'
