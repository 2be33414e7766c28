-- Like or unlike a blog, atomically with the version that orders the DB count writes (also
-- a helpful vote or its withdrawal: blogs.helpful, with that set and version).
-- KEYS: [1] the blog's likers (sorted set), [2] its like-version counter
-- ARGV: [1] "like" or "unlike", [2] user id, [3] now (ms)
-- Returns {changed (0/1), likers now, version}: version is 0 when nothing changed.
local changed
if ARGV[1] == 'like' then
  changed = redis.call('ZADD', KEYS[1], 'NX', ARGV[3], ARGV[2])
else
  changed = redis.call('ZREM', KEYS[1], ARGV[2])
end
if changed == 0 then return {0, redis.call('ZCARD', KEYS[1]), 0} end
return {1, redis.call('ZCARD', KEYS[1]), redis.call('INCR', KEYS[2])}
