-- Extend the lease, only for the current owner.
-- KEYS[1] lock hash; ARGV[1] owner token; ARGV[2] lease in ms. Returns 1 renewed, 0 not the owner.
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
