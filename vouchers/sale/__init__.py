"""The flash sale (秒杀): admitted per process first (`admission`), decided in one Redis
script per request (`seckill`), kept in per-voucher shards (`shard`, `stock`), persisted
into the database by the drain (`drain`), checked and repaired against the database
(`reconcile`, `heal`, `dead_letters`), as durable as SECKILL_DURABILITY says
(`durability`), and given a unit back when an order dies (`release`). The orders it makes
are coupons: their life after the sale is `vouchers.coupons`'."""
