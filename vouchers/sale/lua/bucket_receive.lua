-- A bucket receives the stock another bucket gave it (bucket_give.lua), once per move.
-- (shard_live() comes from live_lib.lua, prepended on load.)
-- KEYS (the receiving shard's hash tag): [1] stock, [2] applied-moves hash, [3] live marker
-- ARGV[1] move id, [2] units, [3] now (ms), [4] how long an applied move is remembered (s)
-- Returns 1 applied now, 0 applied before, -1 not now: the shard is unverified (its heal
-- counts the move as still in transit, and the move is settled after it).
if not shard_live(KEYS[3]) then return -1 end
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[3]) == 0 then return 0 end
redis.call('EXPIRE', KEYS[2], ARGV[4])
redis.call('INCRBY', KEYS[1], ARGV[2])
return 1
