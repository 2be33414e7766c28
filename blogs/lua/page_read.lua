-- Read a cached page only if it was built at the user's current version, renewing its
-- TTL (and its index's) on a hit. A page built before the latest change is a miss,
-- even if the rebuild task never ran.
-- KEYS: [1] the page (hash {v, data}), [2] the user's version counter, [3] the page index
-- ARGV: [1] TTL (s) for a hit
-- Returns the page's data, or nil.
local page = redis.call('HMGET', KEYS[1], 'v', 'data')
if not page[2] then return nil end
if page[1] ~= (redis.call('GET', KEYS[2]) or '') then return nil end
redis.call('EXPIRE', KEYS[1], ARGV[1])
if redis.call('TTL', KEYS[3]) < tonumber(ARGV[1]) then redis.call('EXPIRE', KEYS[3], ARGV[1]) end
return page[2]
