-- The flash sale in one atomic step: every check first, then every write.
-- (funnel() comes from dianping/redis/lua/funnel_lib.lua and shard_live() from
-- live_lib.lua, prepended on load.)
-- KEYS (one shard's hash tag): [1] stock, [2] buyers hash (user -> order), [3] order stream,
--   [4] pending-orders hash, [5] today's order-id counter, [6] the user's funnel, [7] the
--   shard's live marker (vouchers/heal.py); optionally [8] the caller's login token (see
--   "Token mode" below)
-- ARGV: [1] user id (empty in token mode), [2] voucher id, [3] now (Unix s), [4] begin (Unix s), [5] end (Unix s),
--   [6] shard, [7] shard bits, [8] id epoch (Unix s), [9] counter TTL (s),
--   [10] funnel capacity, [11] funnel leak per ms, [12] now (ms), [13] "1" to charge
--   the funnel ("0" on the caller's retry after loading missing stock),
--   [14] token TTL (s, token mode only)
-- Token mode saves the web request a round trip: the script refreshes the token's TTL
-- (GETEX, as every authenticated request must), reads the user id from its JSON, and
-- KEYS[6] is the funnel key's prefix, completed with that id. It returns {-8} for an
-- unknown token, and {-3, user} so the caller can load the stock and retry by user id.
-- The token key lives outside the shard's slot: fine on one primary, not on a Cluster.
-- Returns {0, seconds, low} on success (order id = seconds << 32 | low, composed by the
-- caller: Lua numbers cannot hold 63 bits), or {code}: -1 not started, -2 ended,
-- -3 stock not loaded, -4 duplicate order, -5 sold out, -6 out of order ids today,
-- -9 the shard is not verified since Redis lost its state (the sale pauses, nothing is
-- charged), or {-7, ms to wait} when the user's funnel is full (every attempt counts).
local user, voucher, funnel_key = ARGV[1], ARGV[2], KEYS[6]
if KEYS[8] then
  local data = redis.call('GETEX', KEYS[8], 'EX', ARGV[14])
  if not data then return {-8} end
  user = string.format('%d', cjson.decode(data)['id'])
  funnel_key = funnel_key .. user
end
if not shard_live(KEYS[7]) then return {-9} end
if ARGV[13] == '1' then
  local allowed, wait = funnel(funnel_key, tonumber(ARGV[10]), tonumber(ARGV[11]), 1, tonumber(ARGV[12]))
  if allowed == 0 then return {-7, wait} end
end
local now = tonumber(ARGV[3])
if now < tonumber(ARGV[4]) then return {-1} end
if now >= tonumber(ARGV[5]) then return {-2} end
local stock = redis.call('GET', KEYS[1])
if not stock then return {-3, user} end
if redis.call('HEXISTS', KEYS[2], user) == 1 then return {-4} end
if tonumber(stock) <= 0 then return {-5} end

local n = redis.call('INCR', KEYS[5])
if n == 1 then redis.call('EXPIRE', KEYS[5], ARGV[9]) end
local shard_bits = tonumber(ARGV[7])
local seconds = now - tonumber(ARGV[8])
local low = n * (2 ^ shard_bits) + tonumber(ARGV[6])
if low >= 2 ^ 32 then return {-6} end  -- the day's id space of this shard is used up
local order = seconds .. ':' .. string.format('%d', low)
redis.call('DECR', KEYS[1])
redis.call('HSET', KEYS[2], user, order)
redis.call('HSET', KEYS[4], order, user .. ':' .. voucher)
redis.call('XADD', KEYS[3], '*', 'voucher', voucher, 'user', user, 'seconds', seconds, 'low', string.format('%d', low))
return {0, seconds, low}
