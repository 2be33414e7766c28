-- Store a shop's dashboard numbers loaded from the database, unless an eviction bumped
-- the shop's version since it was read (before the load): what was loaded may predate the
-- evicting write. Each hash expires ARGV[2] ms after it was created, not after each
-- store, so no field outlives that backstop.
-- KEYS: [1] the shop's version counter, [2] its closed days' tallies (hash),
--   [3] its closed days' ratings (hash)
-- ARGV: [1] the version read before loading ('0' if none), [2] TTL (ms), [3] how many
--   fields of KEYS[2] follow, then field, value, ... of KEYS[2], then of KEYS[3]
-- Returns 1 when stored, 0 when refused.
if (redis.call('GET', KEYS[1]) or '0') ~= ARGV[1] then return 0 end
local split = 4 + 2 * tonumber(ARGV[3])  -- the first ARGV of KEYS[3]'s fields
local function put(key, first, last)
  if first > last then return end
  redis.call('HSET', key, unpack(ARGV, first, last))
  if redis.call('PTTL', key) < 0 then redis.call('PEXPIRE', key, ARGV[2]) end
end
put(KEYS[2], 4, split - 1)
put(KEYS[3], split, #ARGV)
return 1
