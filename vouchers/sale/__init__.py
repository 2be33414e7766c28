"""The flash sale (秒杀): one Redis script decides each grab and the database stores the
order later, so a sale's peak never waits on the database.

One module per step: `admission` lets each process pass at most a voucher's budget,
`seckill` runs the script, `shard` and `stock` say where a voucher's keys and units live,
`drain` writes accepted orders to the database, `reconcile`, `heal` and `dead_letters` find
and repair drift against the database, `durability` is what a 200 survives
(SECKILL_DURABILITY), and `release` gives a unit back when an order dies. The orders are
coupons; their life after the sale is in `vouchers.coupons`."""
