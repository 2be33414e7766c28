"""The Redis side of a dead order: free its buyer in the flash sale and, when its unit
went back on sale, give the unit back too, to the bucket that sold it. The database
decides (a cancel or refund commits first); the sale follows after commit, and the
order's job retries until it agrees (vouchers.coupons.jobs)."""

from __future__ import annotations

from dianping.redis.scripts import lua

from .shard import SALE_REDIS, order_bucket_keys, pending_field

_RELEASE = lua(__file__, "release.lua", alias=SALE_REDIS)


def sale_release(*, voucher_id: int, user_id: int, order_id: int, unit_back: bool) -> bool:
    """Free the buyer of `order_id` and, with `unit_back`, return its unit to the stock.
    Safe to repeat: only a buyer entry that still names this order is touched. False
    when there was nothing to do. Web processes remembering "sold out" stop within
    SECKILL_SOLD_OUT_FLAG_TTL (1 s)."""
    released = _RELEASE(
        order_bucket_keys(voucher_id, order_id),
        [user_id, pending_field(order_id), "1" if unit_back else "0"],
    )
    return bool(released)
