-- Take a voucher's sale out of Redis before its row is deleted, unless it has buyers.
-- KEYS (one shard's hash tag): [1] stock, [2] buyers hash
-- Buyers mean accepted orders, drained or not: the voucher is in use and must stay.
-- Returns 1 retired (stock removed: the script answers "not loaded" from now on), 0 in use.
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('DEL', KEYS[1])
return 1
