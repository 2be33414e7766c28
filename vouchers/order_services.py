"""An order's moves after it is taken: pay, cancel, refund, and the pay timeout. Every
move is one conditional UPDATE on the order's status, so of racing moves (a cancel and
the timeout, a refund and a redemption) exactly one wins, and only the winner gives a
unit back: once to the database stock in its transaction, once to the Redis sale after
commit (vouchers/releases.py).

A move that returns a unit locks the voucher's row before the order's, as claims and the
drain do: on MariaDB a claim holding the voucher row and a cancel holding the order's
unique-slot entry would otherwise wait for each other.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils.translation import gettext, gettext_lazy

from dianping import clock
from dianping.errors import Conflict, ServiceUnavailable
from dianping.transactions import retry_on_lock_conflict

from .caches import orders_changed, vouchers_changed
from .coupons import new_redeem_code
from .errors import Code
from .models import Voucher, VoucherOrder
from .order_selectors import order_get
from .releases import order_jobs, order_release, refund_returns_unit, release_after_commit
from .signals import order_timed_out
from .sold import sold_changed

log = logging.getLogger(__name__)
Status = VoucherOrder.Status


@retry_on_lock_conflict
def order_pay(*, order_id: int, user_id: int) -> VoucherOrder:
    """Simulated payment: unpaid -> paid, with a redeem code. Paying a paid (or used)
    order again answers it unchanged."""
    now = clock.now()
    for _ in range(3):  # a retry only when the fresh redeem code was taken
        try:
            with transaction.atomic():
                paid = VoucherOrder.objects.filter(
                    pk=order_id, user_id=user_id, status=Status.UNPAID, expires_at__gt=now
                ).update(status=Status.PAID, paid_at=now, redeem_code=new_redeem_code())
                if paid:
                    orders_changed([user_id])
                    transaction.on_commit(lambda: order_jobs().cancel(str(order_id)), robust=True)
            break
        except IntegrityError:
            continue
    else:  # three codes taken in a row: something is wrong with the generator, not the user
        raise ServiceUnavailable(gettext("No redeem code could be made; try again."))
    order = _owned(order_id, user_id)
    if paid:
        sold_changed([order.voucher_id])  # committed already: noted at once
    if order.status in (Status.PAID, Status.USED):
        return order
    if order.status == Status.UNPAID:
        raise Conflict(gettext("The coupon expired before it was paid."), code=Code.COUPON_EXPIRED)
    raise _wrong_state(order.status)


@retry_on_lock_conflict
def order_cancel(*, order_id: int, user_id: int) -> VoucherOrder:
    """The buyer cancels an unpaid order: the unit goes back (database and sale) and the
    buyer may take the voucher again. Cancelling a cancelled order answers it unchanged,
    whoever cancelled it (the buyer, or the pay timeout racing them)."""
    if _cancel_if_unpaid(order_id, user_id=user_id):
        transaction.on_commit(lambda: release_after_commit(order_id), robust=True)
    order = _owned(order_id, user_id)
    if order.status != Status.CANCELLED:
        raise _wrong_state(order.status)
    return order


@retry_on_lock_conflict
def order_refund(*, order_id: int, user_id: int) -> VoucherOrder:
    """The buyer returns a paid, unused, unexpired coupon. While its voucher is still on
    sale the unit goes back on sale and the buyer may take it again; after a flash sale
    ended it does not. Refunding a refunded order answers it unchanged."""
    now = clock.now()
    owner = _owner_of(order_id, user_id)
    if owner is not None:
        voucher_id = owner[0]
        with transaction.atomic():
            voucher = _locked_voucher(voucher_id)
            refunded = VoucherOrder.objects.filter(
                pk=order_id, user_id=user_id, status=Status.PAID, expires_at__gt=now
            ).update(status=Status.REFUNDED, refunded_at=now, live_slot=None)
            if refunded:
                orders_changed([user_id])
                sold_changed([voucher_id])
                if refund_returns_unit(voucher, now):
                    _return_to_stock(voucher)
                if voucher.is_seckill:
                    # The release's retry, should the one right after commit fail.
                    order_jobs().schedule(str(order_id), delay=settings.ORDER_RELEASE_RETRY)
                    transaction.on_commit(lambda: release_after_commit(order_id), robust=True)
    order = _owned(order_id, user_id)
    if order.status == Status.REFUNDED:
        return order
    if order.status == Status.PAID:  # it was not refunded: so it has expired
        raise Conflict(gettext("The coupon has expired."), code=Code.COUPON_EXPIRED)
    raise _wrong_state(order.status)


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
            cancelled += _cancel_if_unpaid(order_id)
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
        if not _cancel_if_unpaid(order_id):
            jobs.cancel(str(order_id))  # paid or cancelled meanwhile: nothing to release
            continue
        cancelled += 1
        log.warning("order %s: unpaid past its timeout with no job; cancelled", order_id)
        try:
            release_after_commit(order_id)  # its transaction has committed
        except Exception:
            log.exception("releasing order %s failed; its job retries it", order_id)
    return cancelled


def _cancel_if_unpaid(order_id: int, *, user_id: int | None = None) -> bool:
    """unpaid -> cancelled and the unit back to the database stock, in one transaction;
    True only for the one caller that moved it."""
    owner = _owner_of(order_id, user_id)
    if owner is None:
        return False
    voucher_id, owner_id = owner
    orders = VoucherOrder.objects.filter(pk=order_id, status=Status.UNPAID)
    if user_id is not None:
        orders = orders.filter(user_id=user_id)
    with transaction.atomic():
        voucher = _locked_voucher(voucher_id)
        cancelled = orders.update(status=Status.CANCELLED, live_slot=None, cancelled_at=clock.now())
        if cancelled:
            orders_changed([owner_id])
            _return_to_stock(voucher)
            if user_id is None:  # the pay timeout or its backstop, not the buyer: tell them
                order_timed_out.send(sender=VoucherOrder, order_id=order_id)
    return bool(cancelled)


def _owner_of(order_id: int, user_id: int | None) -> tuple[int, int] | None:
    """(voucher id, user id) of the order (the caller's, when `user_id` is given)."""
    orders = VoucherOrder.objects.filter(pk=order_id)
    if user_id is not None:
        orders = orders.filter(user_id=user_id)
    return orders.values_list("voucher_id", "user_id").first()


def _locked_voucher(voucher_id: int) -> Voucher:
    return Voucher.objects.select_for_update().get(pk=voucher_id)


def _return_to_stock(voucher: Voucher) -> None:
    """One unit back to the database stock (an unlimited voucher's NULL stays NULL); the
    shop's voucher list shows it after commit."""
    if voucher.stock is None:
        return
    Voucher.objects.filter(pk=voucher.id).update(stock=F("stock") + 1)
    vouchers_changed([voucher.id])


def _owned(order_id: int, user_id: int) -> VoucherOrder:
    """The caller's order; 404, or 409 while it is still being placed (in the stream)."""
    order = VoucherOrder.objects.filter(pk=order_id, user_id=user_id).first()
    if order is None:
        order_get(order_id=order_id, user_id=user_id)  # 404 unless it is pending:
        raise Conflict(
            gettext("The order is still being placed; try again in a moment."),
            code=Code.ORDER_PENDING,
        )
    return order


# The answer to a move the order's current state does not allow, by that state.
_WRONG_STATE = {
    Status.UNPAID: (
        gettext_lazy("The order is not paid yet; cancel it instead."),
        Code.ORDER_UNPAID,
    ),
    Status.PAID: (gettext_lazy("The order is paid; refund it instead."), Code.ORDER_PAID),
    Status.USED: (gettext_lazy("The coupon has been used."), Code.COUPON_USED),
    Status.CANCELLED: (gettext_lazy("The order was cancelled."), Code.ORDER_CANCELLED),
    Status.REFUNDED: (gettext_lazy("The order was refunded."), Code.ORDER_REFUNDED),
}


def _wrong_state(status: str) -> Conflict:
    detail, code = _WRONG_STATE[status]
    return Conflict(detail, code=code)
