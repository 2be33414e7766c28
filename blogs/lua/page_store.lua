-- Store a page built from a read made at version ARGV[1], unless a write has bumped the
-- version since (the page may be stale, and storing it could hide the write). The page
-- keeps the version it was built at, so page_read.lua can tell a stale one.
-- KEYS: [1] the page (hash {v, data}), [2] the user's version counter, [3] the page index
-- ARGV: [1] version seen before the read ('0' if none), [2] the page JSON, [3] TTL (s),
--   [4] page number
-- Returns 1 when stored, 0 when refused.
if (redis.call('GET', KEYS[2]) or '0') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'data', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('SADD', KEYS[3], ARGV[4])
-- The index lives at least as long as every page it lists (page_read.lua renews it too).
if redis.call('TTL', KEYS[3]) < tonumber(ARGV[3]) then redis.call('EXPIRE', KEYS[3], ARGV[3]) end
return 1
