"""Claiming a normal voucher: free ones are paid at once, priced ones wait for payment
(or their pay timeout). At most `per_user_limit` live coupons per user and voucher, and
never more than the voucher's stock, whatever races."""

from __future__ import annotations

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils.translation import gettext

from toolkit import clock
from toolkit.errors import Conflict, NotFound
from toolkit.transactions import retry_on_lock_conflict

from ..caches import orders_changed, vouchers_changed
from ..errors import Code
from ..models import Voucher, VoucherOrder
from ..sale_orders import next_order_id
from ..signals import records_written
from .jobs import order_jobs
from .lifecycle import new_order
from .sold import sold_changed


@retry_on_lock_conflict
def voucher_claim(*, user_id: int, voucher_id: int) -> VoucherOrder:
    """Take a coupon of a normal voucher. The unique live slot decides racing claims of
    one user; a guarded UPDATE in the same transaction decides stock (none: unlimited)."""
    voucher = Voucher.objects.filter(pk=voucher_id).first()
    if voucher is None:
        raise NotFound(gettext("No such voucher to claim."), code=Code.VOUCHER_NOT_FOUND)
    if voucher.is_seckill:
        raise Conflict(gettext("This voucher is sold in its flash sale."), code=Code.SALE_ONLY)
    if voucher.status == Voucher.Status.VOID:
        raise Conflict(gettext("This voucher was withdrawn."), code=Code.ENDED)
    # Slot 1 first: most claims are a user's first, and the unique index refuses a taken
    # slot without a query to look. Then the lowest free one, for as long as claims of
    # the same user keep winning the slot we picked (or, once in 10^12, the redeem code).
    slot = 1
    for _ in range(voucher.per_user_limit + 2):
        try:
            return _claim_in_slot(user_id, voucher, slot)
        except IntegrityError:
            slot = _free_slot(user_id, voucher)
    raise _limit_reached()


def _limit_reached() -> Conflict:
    return Conflict(gettext("You hold as many of these as allowed."), code=Code.LIMIT_REACHED)


def _free_slot(user_id: int, voucher: Voucher) -> int:
    taken = set(
        VoucherOrder.objects.filter(
            user_id=user_id, voucher_id=voucher.id, live_slot__isnull=False
        ).values_list("live_slot", flat=True)
    )
    free = next((s for s in range(1, voucher.per_user_limit + 1) if s not in taken), None)
    if free is None:
        raise _limit_reached()
    return free


def _claim_in_slot(user_id: int, voucher: Voucher, slot: int) -> VoucherOrder:
    free = voucher.pay_value == 0
    order = VoucherOrder(
        **new_order(
            order_id=next_order_id(voucher.id),
            user_id=user_id,
            voucher_id=voucher.id,
            created_at=clock.now(),
            valid_days=voucher.valid_days,
            pay_value=voucher.pay_value,
            live_slot=slot,
        )
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
            raise Conflict(gettext("Sold out."), code=Code.SOLD_OUT)
        if voucher.stock is not None:
            vouchers_changed([voucher.id])
        order.save(force_insert=True)
        orders_changed([user_id])
        records_written(VoucherOrder, [(voucher.shop_id, order.created_at)])
        if free:
            sold_changed([voucher.id])
        else:
            # Still inside the transaction: if Redis refuses the timeout, the claim rolls
            # back, for an unpaid order without one would hold its unit forever.
            order_jobs().schedule(str(order.id), delay=settings.ORDER_PAY_TIMEOUT)
    return order
