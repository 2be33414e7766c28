-- (shard_live() comes from live_lib.lua, prepended on load.)
-- KEYS: [1] a shard's live marker. Returns 1 if this Redis process verified the shard.
return shard_live(KEYS[1]) and 1 or 0
