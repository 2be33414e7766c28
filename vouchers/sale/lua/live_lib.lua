-- shard_live(key): whether the shard whose live marker is `key` was verified against the
-- database by this very Redis process (vouchers/sale/heal.py). The marker holds the run id
-- of the process that verified it; a restart, a failover to a replica or a restored
-- backup runs under another run id, so an old marker (from the AOF, an RDB, the
-- replication stream) does not count.
local function shard_live(key)
  local verified_by = redis.call('GET', key)
  if not verified_by then return false end
  return verified_by == string.match(redis.call('INFO', 'server'), 'run_id:(%x+)')
end
