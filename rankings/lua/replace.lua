-- A city's rankings replaced whole (rankings.services._replace): the next hash written from
-- ARGV (field, value, ...), then renamed over the live one. One script: no reader sees a half
-- list, and two computations cannot interleave their writes. KEYS share the city's tag.
-- KEYS[1] next hash, KEYS[2] live hash
redis.call("DEL", KEYS[1])
for i = 1, #ARGV, 2 do
  redis.call("HSET", KEYS[1], ARGV[i], ARGV[i + 1])
end
redis.call("RENAME", KEYS[1], KEYS[2])
return 1
