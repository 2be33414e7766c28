"""Using a coupon (paid -> used, with its write-off record) and giving it back (used ->
paid, the write-off reversed): the steps checkouts and redemptions share. They run
inside the caller's transaction, so the coupon's move and its record commit together."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from dianping import clock
from dianping.errors import Conflict, InvalidInput

from . import discounts
from .caches import orders_changed
from .errors import Code
from .models import ShopOrder, VoucherOrder, WriteOff

Status = VoucherOrder.Status


def expiry_of(created_at: datetime, valid_days: int) -> datetime:
    """Validity is counted from the claim (seed 004)."""
    return created_at + timedelta(days=valid_days)


def new_redeem_code() -> str:
    """12 random digits; the unique index refuses the rare repeat and the caller retries."""
    return f"{secrets.randbelow(10**12):012d}"


# Why a coupon in each state cannot be used (a paid one can, unless expired).
_REFUSALS = {
    Status.UNPAID: (_("The coupon is not paid yet."), Code.COUPON_UNPAID),
    Status.CANCELLED: (_("The coupon was cancelled."), Code.COUPON_CANCELLED),
    Status.USED: (_("The coupon has been used."), Code.COUPON_USED),
    Status.REFUNDED: (_("The coupon was refunded."), Code.COUPON_REFUNDED),
}


def coupon_refusal(coupon: VoucherOrder, now: datetime) -> Conflict | None:
    """Why the coupon cannot be used now, judged from its state; None if it can."""
    if coupon.status == Status.PAID and coupon.is_expired(now):
        return Conflict(gettext("The coupon has expired."), code=Code.COUPON_EXPIRED)
    refusal = _REFUSALS.get(coupon.status)
    return Conflict(*refusal) if refusal else None


def coupon_discount(coupon: VoucherOrder, *, shop_id: int, amount: int | None) -> int:
    """What the coupon takes off `amount` at `shop_id` (a cash coupon's face value when
    no amount is given); raises the refusals that do not depend on racing writers: wrong
    shop, below the threshold, no amount for a coupon whose discount needs one."""
    voucher = coupon.voucher
    if voucher.shop_id != shop_id:
        raise Conflict(gettext("The coupon belongs to another shop."), code=Code.WRONG_SHOP)
    if amount is None:
        if voucher.discount_type != discounts.CASH:
            raise InvalidInput(
                gettext("This coupon's discount depends on the bill: send its amount."),
                code=Code.AMOUNT_REQUIRED,
            )
        return voucher.actual_value
    off = discounts.discount_for(voucher.discount_rule, amount)
    if off is None:
        raise Conflict(
            gettext("The coupon needs an amount of at least %(amount)s fen.")
            % {"amount": voucher.amount_condition},
            code=Code.BELOW_THRESHOLD,
        )
    return off


def coupon_take(coupon: VoucherOrder) -> datetime:
    """paid -> used, in the caller's transaction; returns when. One conditional UPDATE:
    of racing uses (two checkouts, a redemption and a refund) exactly one wins, and the
    others get the coupon's new state as a 409. Callers take the coupon before writing
    rows that point at it: on MariaDB a row pointing at it share-locks it, and two such
    locks both waiting to become this UPDATE's exclusive one would deadlock."""
    now = clock.now()
    used = VoucherOrder.objects.filter(pk=coupon.pk, status=Status.PAID, expires_at__gt=now).update(
        status=Status.USED, used_at=now
    )
    if not used:
        coupon.refresh_from_db(fields=["status", "expires_at"])
        raise coupon_refusal(coupon, now) or Conflict(
            gettext("The coupon cannot be used."), code=Code.COUPON_USED
        )
    orders_changed([coupon.user_id])
    return now


def write_off(
    *,
    coupon: VoucherOrder,
    at: datetime,
    discount: int,
    kind: str,
    by_user_id: int,
    shop_order: ShopOrder | None = None,
) -> WriteOff:
    """The record of a coupon taken at `at` (核销记录)."""
    return WriteOff.objects.create(
        order=coupon,
        voucher_id=coupon.voucher_id,
        shop_id=coupon.voucher.shop_id,
        shop_order=shop_order,
        kind=kind,
        discount=discount,
        redeemed_at=at,
        redeemed_by_id=by_user_id,
    )


def coupon_give_back(*, shop_order: ShopOrder, now: datetime) -> None:
    """A refunded checkout's coupon: its write-off is reversed, and the coupon is unused
    again if it is still valid (an expired one stays used: it was spent on that bill)."""
    WriteOff.objects.filter(shop_order=shop_order, standing=True).update(
        standing=None, reversed_at=now
    )
    if VoucherOrder.objects.filter(
        pk=shop_order.coupon_id, status=Status.USED, expires_at__gt=now
    ).update(status=Status.PAID, used_at=None):
        orders_changed([shop_order.user_id])
