"""Using a coupon at its shop (a checkout or a redemption): what it takes off the bill, its
move to used and the write-off record, and the way back when the bill is refunded. They
run inside the caller's transaction, so the coupon's move and its record commit together."""

from __future__ import annotations

from datetime import datetime

from django.utils.translation import gettext

from toolkit import clock
from toolkit.errors import Conflict, InvalidInput

from ..caches import orders_changed
from ..errors import Code
from ..models import ShopOrder, VoucherOrder, WriteOff
from ..signals import records_written
from . import discounts
from .lifecycle import Actor, Move, move, refused


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


def coupon_take(coupon: VoucherOrder, *, by: Actor) -> datetime:
    """paid -> used, in the caller's transaction; returns when. Of racing uses (two
    checkouts, a redemption and a refund) exactly one wins, and the others get the
    coupon's new state as a 409. Callers take the coupon before writing rows that point
    at it: on MariaDB a row pointing at it share-locks it, and two such locks both
    waiting to become this UPDATE's exclusive one would deadlock."""
    now = clock.now()
    if not move(VoucherOrder.objects.filter(pk=coupon.pk), Move.USE, by=by, now=now):
        coupon.refresh_from_db(fields=["status", "expires_at"])
        raise refused(Move.USE, coupon, now)
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
    record = WriteOff.objects.create(
        order=coupon,
        voucher_id=coupon.voucher_id,
        shop_id=coupon.voucher.shop_id,
        shop_order=shop_order,
        kind=kind,
        discount=discount,
        redeemed_at=at,
        redeemed_by_id=by_user_id,
    )
    records_written(WriteOff, [(record.shop_id, at)])
    return record


def coupon_give_back(*, shop_order: ShopOrder, now: datetime) -> None:
    """A refunded checkout's coupon: its write-off is reversed, and the coupon is unused
    again if it is still valid (an expired one stays used: it was spent on that bill)."""
    standing = WriteOff.objects.filter(shop_order=shop_order, standing=True)
    # The days they were counted on lose them, however long ago (the dashboard's).
    reversed_ones = list(standing.values_list("shop_id", "redeemed_at"))
    standing.update(standing=None, reversed_at=now)
    records_written(WriteOff, reversed_ones)
    assert shop_order.coupon_id is not None  # a refund gives back only a bill's coupon
    coupon = VoucherOrder.objects.filter(pk=shop_order.coupon_id)
    if move(coupon, Move.GIVE_BACK, by=Actor.BILL_REFUND, now=now):
        orders_changed([shop_order.user_id])
