-- The flash sale in one atomic step: every check first, then every write.
-- (funnel() comes from toolkit/redis/lua/funnel_lib.lua and shard_live() from
-- live_lib.lua, prepended on load.)
--
-- The contract with vouchers/sale/seckill.py is named once on each side, and
-- tests/vouchers/test_seckill_contract.py checks that the two agree: KEYS in the order
-- of SaleKeys, ARGV in the order of SaleArgs, the verdicts of VERDICT as Verdict.
--
-- KEYS, one shard's hash tag but the token: stock, buyers hash (user -> order), order
-- stream, pending-orders hash, today's order-id counter, the user's funnel, the shard's
-- live marker (vouchers/sale/heal.py), the user's open challenge of the sale
-- (vouchers/sale/challenge.py), and in token mode the caller's login token.
local stock_key, buyers_key, orders_key, pending_key, counter_key, funnel_key, live_key,
  challenge_key, token_key = unpack(KEYS)
-- ARGV: user id (empty in token mode), voucher id, now and the sale's begin and end
-- (Unix s), the shard and its bits in an order id, the id epoch (Unix s), the counter's
-- TTL (s), the funnel's capacity and leak per ms, now (ms), "1" to charge the funnel
-- ("0" on the caller's retry after loading missing stock), the token's TTL (s), and the
-- HMAC of the request's challenge answer ("" when none is checked: a sale without one,
-- or the caller's retry within the same request, whose first call used it).
local user, voucher, now, begin_at, end_at, shard, shard_bits, id_epoch, counter_ttl,
  funnel_capacity, funnel_leak_per_ms, now_ms, charge_funnel, token_ttl,
  challenge_digest = unpack(ARGV)
-- Returns {ok, seconds, low} (order id = seconds << 32 | low, composed by the caller:
-- Lua numbers cannot hold 63 bits), {throttled, ms to wait} when the user's funnel is
-- full (every attempt counts), {not_loaded, user} so the caller can load the stock and
-- retry by user id, or {verdict}. `unverified`: the shard is not verified since Redis
-- lost its state (the sale pauses, nothing is charged); `out_of_ids`: the shard's order
-- ids of the day are used up; `challenge_expired`: no open challenge for this user and
-- sale (never fetched, expired, used); `challenge_wrong`: the answer's HMAC differs.
local VERDICT = {
  ok = 0, not_started = -1, ended = -2, not_loaded = -3, duplicate = -4, sold_out = -5,
  out_of_ids = -6, throttled = -7, unknown_token = -8, unverified = -9,
  challenge_expired = -10, challenge_wrong = -11,
}

-- Token mode saves the web request a round trip: the script refreshes the token's TTL
-- (GETEX, as every authenticated request must), reads the user id from its JSON, and
-- funnel_key and challenge_key are prefixes, completed with that id. The token key lives
-- outside the shard's slot: fine on one primary, not on a Cluster.
if token_key then
  local data = redis.call('GETEX', token_key, 'EX', token_ttl)
  if not data then return {VERDICT.unknown_token} end
  user = string.format('%d', cjson.decode(data)['id'])
  funnel_key = funnel_key .. user
  challenge_key = challenge_key .. user
end
if not shard_live(live_key) then return {VERDICT.unverified} end
if charge_funnel == '1' then
  local allowed, wait = funnel(funnel_key, tonumber(funnel_capacity),
    tonumber(funnel_leak_per_ms), 1, tonumber(now_ms))
  if allowed == 0 then return {VERDICT.throttled, wait} end
end
now = tonumber(now)
if now < tonumber(begin_at) then return {VERDICT.not_started} end
if now >= tonumber(end_at) then return {VERDICT.ended} end
-- The challenge, once the sale is open: answered once, right or wrong (deleted either
-- way), and a refusal changes nothing else.
if challenge_digest ~= '' then
  local expected = redis.call('GET', challenge_key)
  if not expected then return {VERDICT.challenge_expired} end
  redis.call('DEL', challenge_key)
  if expected ~= challenge_digest then return {VERDICT.challenge_wrong} end
end
local units = redis.call('GET', stock_key)
if not units then return {VERDICT.not_loaded, user} end
if redis.call('HEXISTS', buyers_key, user) == 1 then return {VERDICT.duplicate} end
if tonumber(units) <= 0 then return {VERDICT.sold_out} end

local n = redis.call('INCR', counter_key)
if n == 1 then redis.call('EXPIRE', counter_key, counter_ttl) end
local seconds = now - tonumber(id_epoch)
local low = n * (2 ^ tonumber(shard_bits)) + tonumber(shard)
if low >= 2 ^ 32 then return {VERDICT.out_of_ids} end
local order = seconds .. ':' .. string.format('%d', low)
redis.call('DECR', stock_key)
redis.call('HSET', buyers_key, user, order)
redis.call('HSET', pending_key, order, user .. ':' .. voucher)
redis.call('XADD', orders_key, '*', 'voucher', voucher, 'user', user, 'seconds', seconds,
  'low', string.format('%d', low))
return {VERDICT.ok, seconds, low}
