-- One round trip for a user page: the cached blog count and the page, each with its TTL
-- renewed on a hit. A page built before the latest change (older `v`) is a miss, even
-- if the rebuild task never ran.
-- KEYS: [1] the count, [2] the page (hash {v, data}), [3] the user's version counter,
--   [4] the page index
-- ARGV: [1] TTL (s) for hits
-- Returns {count or false, page data or false}.
local count = redis.call('GETEX', KEYS[1], 'EX', ARGV[1])
local page = redis.call('HMGET', KEYS[2], 'v', 'data')
if not page[2] or page[1] ~= (redis.call('GET', KEYS[3]) or '0') then
  return {count, false}
end
redis.call('EXPIRE', KEYS[2], ARGV[1])
if redis.call('TTL', KEYS[4]) < tonumber(ARGV[1]) then redis.call('EXPIRE', KEYS[4], ARGV[1]) end
return {count, page[2]}
