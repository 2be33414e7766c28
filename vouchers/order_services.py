"""Order writes after the sale: payment, and the pay timeout that cancels an unpaid order
and gives its unit back."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.db import transaction
from django.db.models import F

from dianping import clock
from dianping.errors import Conflict
from dianping.redis.delayqueue import DelayQueue
from dianping.redis.scripts import lua

from .models import Voucher, VoucherOrder
from .order_selectors import order_get
from .shard import buyers_key, pending_field, stock_key

_RELEASE = lua(__file__, "release.lua")
log = logging.getLogger(__name__)


def pay_timeouts() -> DelayQueue:
    """Unpaid orders, due for cancellation ORDER_PAY_TIMEOUT after they were persisted."""
    return DelayQueue("order-pay-timeout", lease=60)


def order_pay(*, order_id: int, user_id: int) -> VoucherOrder:
    """Simulated payment: unpaid -> paid. Paying a paid order again answers the same."""
    with transaction.atomic():
        order = (
            VoucherOrder.objects.select_for_update().filter(pk=order_id, user_id=user_id).first()
        )
        if order is None:
            order_get(order_id=order_id, user_id=user_id)  # 404, or pending:
            raise Conflict(
                "The order is still being placed; try again in a moment.", code="order_pending"
            )
        if order.status == VoucherOrder.Status.UNPAID:
            now = clock.now()
            valid_days = Voucher.objects.values_list("valid_days", flat=True).get(
                pk=order.voucher_id
            )
            order.status, order.paid_at = VoucherOrder.Status.PAID, now
            order.expires_at = now + timedelta(days=valid_days)
            order.save(update_fields=["status", "paid_at", "expires_at"])
            transaction.on_commit(lambda: pay_timeouts().cancel(str(order_id)), robust=True)
        elif order.status != VoucherOrder.Status.PAID:
            raise Conflict(f"The order is {order.status}.", code=f"order_{order.status}")
    return order


def order_cancel_if_unpaid(*, order_id: int) -> bool:
    """Cancel an order still unpaid (its pay timeout came): the unit goes back to the
    database stock, and the order stops holding the buyer's one place. Idempotent: True
    only the first time. Redis follows in `order_release`."""
    with transaction.atomic():
        cancelled = VoucherOrder.objects.filter(
            pk=order_id, status=VoucherOrder.Status.UNPAID
        ).update(status=VoucherOrder.Status.CANCELLED, live=None, cancelled_at=clock.now())
        if cancelled:
            voucher_id = VoucherOrder.objects.values_list("voucher_id", flat=True).get(pk=order_id)
            Voucher.objects.filter(pk=voucher_id).update(stock=F("stock") + 1)
    return bool(cancelled)


def order_release(order: VoucherOrder) -> bool:
    """Give a cancelled order's unit back to the Redis sale and free its buyer. Safe to
    repeat: only a buyer entry that still names this order is released."""
    released = _RELEASE(
        [stock_key(order.voucher_id), buyers_key(order.voucher_id)],
        [order.user_id, pending_field(order.id)],
    )
    # Web processes remembering "sold out" stop within SECKILL_SOLD_OUT_FLAG_TTL (1 s).
    return bool(released)


def cancel_due_orders(*, limit: int = 500) -> int:
    """Cancel the unpaid orders whose pay timeout has come; returns how many were cancelled.

    A job is acked only once both the database and Redis agree: if the release fails
    (or the worker dies), the lease runs out and the job comes back, and the release
    (idempotent per order) is tried again.
    """
    queue = pay_timeouts()
    cancelled = 0
    for claim in queue.claim(limit=limit):
        order_id = int(claim.member)
        try:
            cancelled += order_cancel_if_unpaid(order_id=order_id)
            order = VoucherOrder.objects.filter(
                pk=order_id, status=VoucherOrder.Status.CANCELLED
            ).first()
            if order is not None:
                order_release(order)
        except Exception:
            log.exception("cancelling order %s failed; it will be retried", order_id)
            continue
        queue.ack(claim)
    return cancelled
