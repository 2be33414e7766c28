"""The order jobs: each unpaid order's pay timeout, and the retry of a dead order's
release to the Redis sale, in one delay queue keyed by order id. `settle_due_orders`
runs what is due; `cancel_overdue_orders` is the backstop for jobs Redis lost."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction

from toolkit import clock

from ..caches import orders_changed
from ..models import VoucherOrder
from ..sale_orders import order_jobs, sale_release
from ..signals import order_timed_out
from .lifecycle import Actor, Move, locked_voucher, move, return_to_stock, unit_returns
from .selectors import order_owner

log = logging.getLogger(__name__)
Status = VoucherOrder.Status


def order_release(order: VoucherOrder) -> bool:
    """Make the Redis sale agree with a cancelled or refunded flash-sale order (see
    `sale_release`); False when there was nothing to do."""
    if not order.voucher.is_seckill:
        return False
    return sale_release(
        voucher_id=order.voucher_id,
        user_id=order.user_id,
        order_id=order.id,
        unit_back=unit_returns(order),
    )


def release_after_commit(order_id: int) -> None:
    """The release that normally settles a dead order at once; its job stays queued (and
    retries) unless this one did the work."""
    order = VoucherOrder.objects.select_related("voucher").get(pk=order_id)
    if order_release(order) or not order.voucher.is_seckill:
        order_jobs().cancel(str(order_id))


def settle_due_orders(*, limit: int = 500) -> int:
    """Handle the order jobs that are due: cancel orders still unpaid (their pay timeout),
    then make Redis agree with every dead order (the release, idempotent). Returns how
    many orders were cancelled here.

    A job is acked only once both the database and Redis agree: if the release fails
    (or the worker dies), the lease runs out and the job comes back.
    """
    queue = order_jobs()
    cancelled = 0
    for claim in queue.claim(limit=limit):
        order_id = int(claim.member)
        try:
            cancelled += cancel_unpaid(order_id)
            order = (
                VoucherOrder.objects.select_related("voucher")
                .filter(pk=order_id, status__in=[Status.CANCELLED, Status.REFUNDED])
                .first()
            )
            if order is not None:
                order_release(order)
        except Exception:
            log.exception("settling order %s failed; it will be retried", order_id)
            continue
        queue.ack(claim)
    return cancelled


def cancel_overdue_orders(*, limit: int = 500) -> int:
    """The pay timeout's backstop: cancel the unpaid orders older than the timeout plus
    ORDER_OVERDUE_GRACE that have no job queued, as their job would have, and release
    them in Redis. It finds nothing unless a job was lost (Redis restored from an older
    backup, or `none` mode's last second): an order stored late (a drain that waited for
    the database) still has its job, and keeps its whole pay window. Returns how many
    orders were cancelled here."""
    cutoff = clock.now() - timedelta(
        seconds=settings.ORDER_PAY_TIMEOUT + settings.ORDER_OVERDUE_GRACE
    )
    overdue = VoucherOrder.objects.filter(status=Status.UNPAID, created_at__lt=cutoff)
    ids = [str(i) for i in overdue.order_by("created_at").values_list("id", flat=True)[:limit]]
    jobs = order_jobs()
    queued = jobs.queued(ids)
    cancelled = 0
    for order_id in (int(i) for i in ids if i not in queued):
        # The release's retry first, as a refund does: should the release below fail,
        # settle_due_orders makes it later (the order is no longer unpaid to find here).
        jobs.schedule(str(order_id), delay=settings.ORDER_RELEASE_RETRY)
        if not cancel_unpaid(order_id):
            jobs.cancel(str(order_id))  # paid or cancelled meanwhile: nothing to release
            continue
        cancelled += 1
        log.warning("order %s: unpaid past its timeout with no job; cancelled", order_id)
        try:
            release_after_commit(order_id)  # its transaction has committed
        except Exception:
            log.exception("releasing order %s failed; its job retries it", order_id)
    return cancelled


def cancel_unpaid(order_id: int, *, user_id: int | None = None) -> bool:
    """unpaid -> cancelled and the unit back to the database stock, in one transaction;
    True only for the one caller that moved it. Without `user_id` it is the pay timeout
    (or its backstop) cancelling, and the owner is told."""
    owner = order_owner(order_id=order_id, user_id=user_id)
    if owner is None:
        return False
    voucher_id, owner_id = owner
    orders = VoucherOrder.objects.filter(pk=order_id)
    if user_id is not None:
        orders = orders.filter(user_id=user_id)
    by = Actor.PAY_TIMEOUT if user_id is None else Actor.OWNER
    with transaction.atomic():
        voucher = locked_voucher(voucher_id)
        cancelled = move(orders, Move.CANCEL, by=by, now=clock.now())
        if cancelled:
            orders_changed([owner_id])
            return_to_stock(voucher)
            if by is Actor.PAY_TIMEOUT:
                order_timed_out.send(sender=VoucherOrder, order_id=order_id)
    return bool(cancelled)
