-- Claim due jobs of a delay queue, each for exactly one caller at a time.
-- KEYS[1] due set (score = due time, ms); KEYS[2] leased set (score = lease expiry, ms)
-- ARGV[1] now (ms); ARGV[2] lease (ms); ARGV[3] most jobs to claim
-- Jobs whose lease ran out (their worker died before acking) become due again first.
-- Returns {lease expiry, member...}: the expiry is the claim's token for `ack`.
local now, lease, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local lapsed = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, limit)
for _, member in ipairs(lapsed) do
  redis.call('ZREM', KEYS[2], member)
  redis.call('ZADD', KEYS[1], now, member)
end
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, limit)
for _, member in ipairs(due) do
  redis.call('ZREM', KEYS[1], member)
  redis.call('ZADD', KEYS[2], now + lease, member)
end
table.insert(due, 1, now + lease)
return due
