-- A user's interaction with a shop, in their bounded history (recommendations.model's
-- rule). KEYS[1]: the history (sorted set: shop -> ms). ARGV: shop, ms, history size.
-- Returns {1, the shops it held before} when the shop is new to it (the caller pairs
-- it with those), {0} when it only moved up.
local history, shop, at, size = KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[3])
local known = redis.call('ZSCORE', history, shop)
if known then
  if tonumber(known) < tonumber(at) then redis.call('ZADD', history, at, shop) end
  return {0}
end
local before = redis.call('ZRANGE', history, 0, -1)
redis.call('ZADD', history, at, shop)
redis.call('ZREMRANGEBYRANK', history, 0, -size - 1)
local reply = {1}
for _, other in ipairs(before) do reply[#reply + 1] = other end
return reply
