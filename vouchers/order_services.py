"""A coupon's life after it is taken: claim (normal vouchers), pay, cancel, refund, and
the pay timeout. Every move is one conditional UPDATE on the order's status, so two
racing moves (a cancel and the timeout, a refund and a redemption) have exactly one
winner, and only the winner gives a unit back: once to the database stock in the same
transaction, and once to the Redis sale after commit.

Units go back to Redis through the order jobs queue as well (see `settle_due_orders`):
a job is acked only when Redis agrees, so a release lost to a Redis blip is retried.
"""

from __future__ import annotations

import logging
import secrets
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F

from dianping import clock
from dianping.errors import Conflict, NotFound
from dianping.redis.delayqueue import DelayQueue
from dianping.redis.scripts import lua

from .errors import Code
from .models import Voucher, VoucherOrder
from .order_selectors import order_get
from .shard import buyers_key, next_order_id, pending_field, stock_key

_RELEASE = lua(__file__, "release.lua")
log = logging.getLogger(__name__)

Status = VoucherOrder.Status


def _wrong_state(status: str) -> Conflict:
    """The answer to a move the order's current state does not allow."""
    detail, code = {
        Status.UNPAID: ("The order is not paid yet; cancel it instead.", Code.ORDER_UNPAID),
        Status.PAID: ("The order is paid; refund it instead.", Code.ORDER_PAID),
        Status.USED: ("The coupon has been used.", Code.COUPON_USED),
        Status.CANCELLED: ("The order was cancelled.", Code.ORDER_CANCELLED),
        Status.REFUNDED: ("The order was refunded.", Code.ORDER_REFUNDED),
    }[status]
    return Conflict(detail, code=code)


def order_jobs() -> DelayQueue:
    """Jobs per order id: the pay timeout of an unpaid order, and the retry of a unit's
    release to Redis after a cancel or refund (`settle_due_orders` handles both)."""
    return DelayQueue("order-pay-timeout", lease=60)


def voucher_claim(*, user_id: int, voucher_id: int) -> VoucherOrder:
    """Take a coupon of a normal voucher: paid at once when free, else unpaid until paid
    or its pay timeout. At most `per_user_limit` live coupons per user and voucher (the
    unique live slot decides races), and never more than the voucher's stock (a guarded
    UPDATE in the same transaction; no stock means unlimited)."""
    voucher = Voucher.objects.filter(pk=voucher_id, type=Voucher.Kind.NORMAL).first()
    if voucher is None:
        raise NotFound("No such voucher to claim.", code=Code.VOUCHER_NOT_FOUND)
    if voucher.status == Voucher.Status.VOID:
        raise Conflict("This voucher was withdrawn.", code=Code.ENDED)
    # Slot 1 first: most claims are a user's first, and the unique index refuses a taken
    # slot without a query to look. Then the lowest free one, for as long as claims of
    # the same user keep winning the slot we picked (or, once in 10^12, the redeem code).
    slot = 1
    for _ in range(voucher.per_user_limit + 2):
        try:
            return _claim_in_slot(user_id, voucher, slot)
        except IntegrityError:
            slot = _free_slot(user_id, voucher)
    raise Conflict("You hold as many of these as allowed.", code=Code.LIMIT_REACHED)


def _free_slot(user_id: int, voucher: Voucher) -> int:
    taken = set(
        VoucherOrder.objects.filter(
            user_id=user_id, voucher_id=voucher.id, live_slot__isnull=False
        ).values_list("live_slot", flat=True)
    )
    free = next((s for s in range(1, voucher.per_user_limit + 1) if s not in taken), None)
    if free is None:
        raise Conflict("You hold as many of these as allowed.", code=Code.LIMIT_REACHED)
    return free


def _claim_in_slot(user_id: int, voucher: Voucher, slot: int) -> VoucherOrder:
    now = clock.now()
    free = voucher.pay_value == 0
    order = VoucherOrder(
        id=next_order_id(voucher.id),
        user_id=user_id,
        voucher_id=voucher.id,
        live_slot=slot,
        status=Status.PAID if free else Status.UNPAID,
        created_at=now,
        paid_at=now if free else None,
        expires_at=expiry_of(now, voucher.valid_days),
        redeem_code=new_redeem_code() if free else None,
    )
    with transaction.atomic():
        # Only a voucher with stock is counted down, and only while some is left; the row
        # stays locked until commit, so its claims go one at a time. An unlimited one
        # locks nothing (a claim racing the operator's switch to limited counts as before).
        if voucher.stock is not None and not (
            Voucher.objects.filter(pk=voucher.id, stock__gt=0)
            .exclude(status=Voucher.Status.VOID)
            .update(stock=F("stock") - 1)
        ):
            raise Conflict("Sold out.", code=Code.SOLD_OUT)
        if not free:
            # Scheduled before the commit: a timeout whose order never commits finds
            # nothing to cancel, but an unpaid order without one would hold its unit forever.
            order_jobs().schedule(str(order.id), delay=settings.ORDER_PAY_TIMEOUT)
        order.save(force_insert=True)
    return order


def new_redeem_code() -> str:
    """12 random digits; the unique index refuses the rare repeat and the caller retries."""
    return f"{secrets.randbelow(10**12):012d}"


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
                    transaction.on_commit(lambda: order_jobs().cancel(str(order_id)), robust=True)
            break
        except IntegrityError:
            continue
    order = _owned(order_id, user_id)
    if order.status in (Status.PAID, Status.USED):
        return order
    if order.status == Status.UNPAID:
        raise Conflict("The coupon expired before it was paid.", code=Code.COUPON_EXPIRED)
    raise _wrong_state(order.status)


def order_cancel(*, order_id: int, user_id: int) -> VoucherOrder:
    """The buyer cancels an unpaid order: the unit goes back (database and sale) and the
    buyer may take the voucher again. Cancelling a cancelled order answers it unchanged,
    whoever cancelled it (the buyer, or the pay timeout racing them)."""
    if _cancel_if_unpaid(order_id, user_id=user_id):
        transaction.on_commit(lambda: _release_now(order_id), robust=True)
    order = _owned(order_id, user_id)
    if order.status != Status.CANCELLED:
        raise _wrong_state(order.status)
    return order


def order_refund(*, order_id: int, user_id: int) -> VoucherOrder:
    """The buyer returns a paid, unused, unexpired coupon. While its voucher is still on
    sale the unit goes back on sale and the buyer may take it again; after a flash sale
    ended it does not. Refunding a refunded order answers it unchanged."""
    now = clock.now()
    with transaction.atomic():
        refunded = VoucherOrder.objects.filter(
            pk=order_id, user_id=user_id, status=Status.PAID, expires_at__gt=now
        ).update(status=Status.REFUNDED, refunded_at=now, live_slot=None)
        if refunded:
            order = VoucherOrder.objects.select_related("voucher").get(pk=order_id)
            if unit_returns(order):
                _return_to_stock(order.voucher_id)
            if order.voucher.is_seckill:
                # The release's retry, should the one right after commit fail.
                order_jobs().schedule(str(order_id), delay=settings.ORDER_RELEASE_RETRY)
                transaction.on_commit(lambda: _release_now(order_id), robust=True)
    order = _owned(order_id, user_id)
    if order.status == Status.REFUNDED:
        return order
    if order.status == Status.PAID:  # it was not refunded: so it has expired
        raise Conflict("The coupon has expired.", code=Code.COUPON_EXPIRED)
    raise _wrong_state(order.status)


def _owned(order_id: int, user_id: int) -> VoucherOrder:
    """The caller's order; 404, or 409 while it is still being placed (in the stream)."""
    order = VoucherOrder.objects.filter(pk=order_id, user_id=user_id).first()
    if order is None:
        order_get(order_id=order_id, user_id=user_id)  # 404 unless it is pending:
        raise Conflict(
            "The order is still being placed; try again in a moment.", code=Code.ORDER_PENDING
        )
    return order


def _cancel_if_unpaid(order_id: int, *, user_id: int | None = None) -> bool:
    """unpaid -> cancelled and the unit back to the database stock, in one transaction;
    True only for the one caller that moved it."""
    orders = VoucherOrder.objects.filter(pk=order_id, status=Status.UNPAID)
    if user_id is not None:
        orders = orders.filter(user_id=user_id)
    with transaction.atomic():
        cancelled = orders.update(status=Status.CANCELLED, live_slot=None, cancelled_at=clock.now())
        if cancelled:
            voucher_id = VoucherOrder.objects.values_list("voucher_id", flat=True).get(pk=order_id)
            _return_to_stock(voucher_id)
    return bool(cancelled)


def _return_to_stock(voucher_id: int) -> None:
    Voucher.objects.filter(pk=voucher_id).update(stock=F("stock") + 1)  # NULL stays NULL


def unit_returns(order: VoucherOrder) -> bool:
    """Whether a dead order's unit went back on sale: always for a cancellation; for a
    refund, only while its voucher was still on sale (a refund after a flash sale ended
    leaves the unit sold)."""
    if order.status == Status.CANCELLED:
        return True
    if order.status == Status.REFUNDED and order.refunded_at is not None:
        return order.voucher.status_at(order.refunded_at) == Voucher.Status.ACTIVE
    return False


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


def _release_now(order_id: int) -> None:
    """After commit: the release that normally settles it; the order's job retries it."""
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


def expiry_of(created_at: datetime, valid_days: int) -> datetime:
    """Validity is counted from the claim (seed 004)."""
    return created_at + timedelta(days=valid_days)
