-- Settle a drained batch of one shard after its transaction committed, and trim the
-- stream to the work still in progress: everything older than the oldest unacked entry,
-- or when none is unacked everything delivered; unacked entries never go. The stream's
-- first entry is so always one still waiting, which /api/health reads as the drain's lag.
-- KEYS (one shard's hash tag): [1] order stream, [2] pending hash, [3] failures hash,
--   [4] lag histogram hash
-- ARGV: [1] consumer group, [2] how many entries follow, then the entry ids, then as many
--   pending-hash fields, then pairs of (lag bucket, count)
-- Returns how many entries the trim removed.
local group, n = ARGV[1], tonumber(ARGV[2])
if n > 0 then
  local ids, fields = {}, {}
  for i = 1, n do
    ids[i] = ARGV[2 + i]
    fields[i] = ARGV[2 + n + i]
  end
  redis.call('XACK', KEYS[1], group, unpack(ids))
  redis.call('HDEL', KEYS[2], unpack(fields))
  redis.call('HDEL', KEYS[3], unpack(ids))
end
for i = 3 + 2 * n, #ARGV, 2 do
  redis.call('HINCRBY', KEYS[4], ARGV[i], ARGV[i + 1])
end
local pending = redis.call('XPENDING', KEYS[1], group)
local floor = pending[2]
if tonumber(pending[1]) == 0 then
  for _, info in ipairs(redis.call('XINFO', 'GROUPS', KEYS[1])) do
    local fields = {}
    for i = 1, #info, 2 do fields[info[i]] = info[i + 1] end
    if fields['name'] == group then floor = fields['last-delivered-id'] end
  end
  -- MINID keeps its id: the floor is the id just after the last delivered entry.
  local ms, seq = string.match(floor or '', '^(%d+)-(%d+)$')
  floor = ms and (ms .. '-' .. string.format('%d', tonumber(seq) + 1))
end
if not floor then return 0 end
return redis.call('XTRIM', KEYS[1], 'MINID', floor)
