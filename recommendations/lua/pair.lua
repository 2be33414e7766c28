-- One side of a pair seen together once more: shop A's count with B goes up, and B's
-- weight among A's neighbours is set from it (recommendations.model.weight); only the
-- strongest K neighbours (and their counts) are kept.
-- KEYS[1]: A's counts (hash: B -> count), KEYS[2]: A's neighbours (sorted set: B ->
-- weight), both tagged with A. ARGV: B, users(A) * users(B), K.
local counts, neighbours, other = KEYS[1], KEYS[2], ARGV[1]
local product, size = tonumber(ARGV[2]), tonumber(ARGV[3])
local count = redis.call('HINCRBY', counts, other, 1)
if product < 1 then product = 1 end
redis.call('ZADD', neighbours, string.format('%.17g', count / math.sqrt(product)), other)
local extra = redis.call('ZCARD', neighbours) - size
if extra > 0 then
  local dropped = redis.call('ZRANGE', neighbours, 0, extra - 1)
  redis.call('ZREMRANGEBYRANK', neighbours, 0, extra - 1)
  redis.call('HDEL', counts, unpack(dropped))
end
return count
