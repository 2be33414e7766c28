-- One bucket of a sale gives stock to another (vouchers/sale/buckets.py), recording the
-- move in its transit hash in the same step, so that units are never lost between the
-- two buckets' slots: whoever settles the move later applies it at most once.
-- (shard_live() comes from live_lib.lua, prepended on load.)
-- KEYS (the giving shard's hash tag): [1] stock, [2] transit hash, [3] live marker
-- ARGV[1] move id, [2] "<voucher>:<to shard>", [3] units wanted, [4] now (ms)
-- Returns the units taken: 0 when the bucket is empty or unloaded, -1 when its shard is
-- unverified (its stock is not known until its heal).
if not shard_live(KEYS[3]) then return -1 end
local units = tonumber(redis.call('GET', KEYS[1]) or '0')
local take = math.min(units, tonumber(ARGV[3]))
if take <= 0 then return 0 end
redis.call('DECRBY', KEYS[1], take)
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2] .. ':' .. take .. ':' .. ARGV[4])
return take
