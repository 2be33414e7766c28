-- Put blogs into a follower's inbox, only while they still follow the author: an
-- unfollow (which removes the author from the set first) can never be undone by a push
-- that was already on its way. The inbox keeps its newest ARGV[2] items.
-- KEYS: [1] the follower's following set, [2] the follower's inbox
-- ARGV: [1] author id, [2] inbox bound, then pairs of (score, blog id)
-- Returns 1 when pushed, 0 when the follower no longer follows the author.
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 0 then return 0 end
for i = 3, #ARGV, 2 do
  redis.call('ZADD', KEYS[2], ARGV[i], ARGV[i + 1])
end
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -(tonumber(ARGV[2]) + 1))
return 1
