"""The Redis side of a dead order: free its buyer in the flash sale and, when its unit
went back on sale, give the unit back too. The database decides (a cancel or refund
commits first); Redis follows after commit, and the order's job retries until it agrees.
"""

from __future__ import annotations

from datetime import datetime

from dianping.redis.delayqueue import DelayQueue
from dianping.redis.scripts import lua

from .models import Voucher, VoucherOrder
from .shard import SALE_REDIS, buyers_key, pending_field, stock_key

_RELEASE = lua(__file__, "release.lua", alias=SALE_REDIS)


def order_jobs() -> DelayQueue:
    """Jobs per order id: the pay timeout of an unpaid order, and the retry of a unit's
    release to Redis after a cancel or refund (order_services.settle_due_orders runs
    both). The queue keeps its first name, so jobs queued before it grew stay found. It
    lives with the sale's shards: as durable as they are, and healed with them."""
    return DelayQueue("order-pay-timeout", lease=60, alias=SALE_REDIS)


def unit_returns(order: VoucherOrder) -> bool:
    """Whether a dead order's unit went back on sale: always for a cancellation; for a
    refund, only while its voucher was still on sale (a refund after a flash sale ended
    leaves the unit sold)."""
    if order.status == VoucherOrder.Status.CANCELLED:
        return True
    if order.status == VoucherOrder.Status.REFUNDED and order.refunded_at is not None:
        return refund_returns_unit(order.voucher, order.refunded_at)
    return False


def refund_returns_unit(voucher: Voucher, refunded_at: datetime) -> bool:
    """A refund puts the unit back on sale only while its voucher is still on sale."""
    return voucher.status_at(refunded_at) == Voucher.Status.ACTIVE


def order_release(order: VoucherOrder) -> bool:
    """Make the Redis sale agree with a cancelled or refunded flash-sale order: free its
    buyer and, if `unit_returns`, give the unit back. Safe to repeat: only a buyer entry
    that still names this order is touched. False when there was nothing to do."""
    if not order.voucher.is_seckill:
        return False
    released = _RELEASE(
        [stock_key(order.voucher_id), buyers_key(order.voucher_id)],
        [order.user_id, pending_field(order.id), "1" if unit_returns(order) else "0"],
    )
    # Web processes remembering "sold out" stop within SECKILL_SOLD_OUT_FLAG_TTL (1 s).
    return bool(released)


def release_after_commit(order_id: int) -> None:
    """The release that normally settles a dead order at once; its job stays queued (and
    retries) unless this one did the work."""
    order = VoucherOrder.objects.select_related("voucher").get(pk=order_id)
    if order_release(order) or not order.voucher.is_seckill:
        order_jobs().cancel(str(order_id))
