"""Redemption at the shop (团购券核销): staff of the voucher's shop, or site staff, use a
coupon by its redeem code. A code that matches nothing the caller may redeem is a 404
whatever the reason (unknown, or another shop's), so nobody learns that a code exists;
such misses are limited per user, which is what makes guessing codes hopeless."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext

from shops.selectors import works_at
from toolkit import clock
from toolkit.errors import NotFound, RateLimited
from toolkit.redis.ratelimit import SlidingWindowLimiter
from toolkit.transactions import retry_on_lock_conflict

from ..errors import Code
from ..models import VoucherOrder, WriteOff
from .lifecycle import Actor, Move, refusal
from .usage import coupon_discount, coupon_take, write_off

MISS_SCOPE = "redeem_miss_user"


def _misses() -> SlidingWindowLimiter:
    return SlidingWindowLimiter.for_rate(
        MISS_SCOPE, settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"][MISS_SCOPE]
    )


@retry_on_lock_conflict
def coupon_redeem(
    *, code: str, by_user_id: int, by_site_staff: bool, amount: int | None = None
) -> WriteOff:
    """Use the coupon with `code`: paid -> used and a write-off of kind `redeem`. `amount`
    is the bill, needed by coupons with a threshold or a percentage (a cash coupon counts
    its face value without one)."""
    misses = _misses()
    subject = f"user:{by_user_id}"
    attempt = misses.hit(subject)  # counted now, taken back below if the code is a hit
    if not attempt.allowed:
        raise RateLimited(attempt.retry_after, gettext("Too many unknown codes; try again later."))
    coupon = VoucherOrder.objects.select_related("voucher").filter(redeem_code=code).first()
    if coupon is None or not (
        by_site_staff or works_at(user_id=by_user_id, shop_id=coupon.voucher.shop_id)
    ):
        raise NotFound(gettext("No coupon with this code."), code=Code.CODE_NOT_FOUND)
    misses.refund(subject, attempt)
    if (refused := refusal(Move.USE, coupon, clock.now())) is not None:
        raise refused
    discount = coupon_discount(coupon, shop_id=coupon.voucher.shop_id, amount=amount)
    with transaction.atomic():
        at = coupon_take(coupon, by=Actor.SHOP_STAFF)
        return write_off(
            coupon=coupon,
            at=at,
            discount=discount,
            kind=WriteOff.Kind.REDEEM,
            by_user_id=by_user_id,
        )
