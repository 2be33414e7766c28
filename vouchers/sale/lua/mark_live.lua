-- Mark a shard verified against the database by this Redis process: its live marker
-- holds this process's run id (see live_lib.lua), so a restart, a failover or a restored
-- backup makes it stale. (Order ids need no repair: they carry their second, and a
-- restart takes longer than one; see toolkit/redis/ids.py.)
-- KEYS: [1] the live marker
-- Returns 1.
redis.call('SET', KEYS[1], string.match(redis.call('INFO', 'server'), 'run_id:(%x+)'))
return 1
