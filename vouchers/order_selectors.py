"""Order reads: one order for its owner, "my vouchers" by tab, the coupons that apply to a
bill, the caller's shop orders, and a shop's write-offs of a day."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from django.db.models import QuerySet
from django.utils.translation import gettext

from dianping import clock
from dianping.errors import NotFound
from dianping.redis import ids, keys
from dianping.redis.client import get_redis

from . import discounts, documents
from .errors import Code
from .models import ShopOrder, VoucherOrder, WriteOff
from .shard import pending_field, pending_owner, shard_of_order

SCROLL_PAGE = 10  # "my vouchers" and shop orders alike (seed 004)
PENDING = "pending"  # the status shown while an accepted order waits in the stream


def order_get(*, order_id: int, user_id: int) -> VoucherOrder:
    """The caller's order from the database or, while it waits in the stream, an unsaved
    one with status `pending`. Anybody else's order is a 404."""
    order = VoucherOrder.objects.filter(pk=order_id, user_id=user_id).first()
    if order is not None:
        return order
    owner = get_redis().hget(
        keys.seckill_pending(shard_of_order(order_id)), pending_field(order_id)
    )
    if owner is not None:
        owner_id, voucher_id = pending_owner(owner)
        if owner_id == user_id:
            created_at = datetime.fromtimestamp(ids.timestamp_of(order_id), tz=UTC)
            return VoucherOrder(
                id=order_id, user_id=user_id, voucher_id=voucher_id, status=PENDING,
                created_at=created_at,
            )  # fmt: skip
    raise NotFound(gettext("No such order."), code=Code.ORDER_NOT_FOUND)


def my_vouchers(
    *, user_id: int, tab: str, last_id: int | None
) -> tuple[list[dict[str, Any]], int | None]:
    """The caller's vouchers as the API shows them, newest first, 10 at a time, scrolled
    by `last_id`, and the next page's `last_id` (None at the end): unused = paid, not
    used, still valid; used; expired = paid, unused, past validity; unpaid = grabbed,
    awaiting payment. One query, its rows made into documents without a serializer."""
    now = clock.now()
    mine = VoucherOrder.objects.filter(user_id=user_id)
    if tab == "unpaid":
        mine = mine.filter(status=VoucherOrder.Status.UNPAID)
    elif tab == "unused":
        mine = mine.filter(status=VoucherOrder.Status.PAID, expires_at__gt=now)
    elif tab == "used":
        mine = mine.filter(status=VoucherOrder.Status.USED)
    else:
        mine = mine.filter(status=VoucherOrder.Status.PAID, expires_at__lte=now)
    if last_id is not None:
        mine = mine.filter(id__lt=last_id)
    rows = list(mine.order_by("-id").values(*documents.ORDER_COLUMNS)[:SCROLL_PAGE])
    page = [documents.my_voucher_document(row, now=now) for row in rows]
    return page, (rows[-1]["id"] if len(rows) == SCROLL_PAGE else None)


@dataclass(frozen=True, slots=True)
class CouponOption:
    """One of the caller's coupons for a bill: what it takes off, or why it cannot."""

    coupon: VoucherOrder
    discount: int
    reason: str | None = None  # why it is unusable (Code.BELOW_THRESHOLD)


def coupons_usable(
    *, user_id: int, shop_id: int, amount: int
) -> tuple[list[CouponOption], list[CouponOption]]:
    """The caller's paid, unused, unexpired coupons for a shop, split by whether they
    apply to `amount`: usable ones best first (largest discount, then the soonest to
    expire, so a tie spends the coupon that would lapse first), the rest with a reason."""
    coupons = VoucherOrder.objects.filter(
        user_id=user_id,
        status=VoucherOrder.Status.PAID,
        expires_at__gt=clock.now(),
        voucher__shop_id=shop_id,
    ).select_related("voucher")
    usable, unusable = [], []
    for coupon in coupons:
        off = discounts.discount_for(coupon.voucher.discount_rule, amount)
        if off is None:
            unusable.append(CouponOption(coupon, 0, Code.BELOW_THRESHOLD))
        else:
            usable.append(CouponOption(coupon, off))
    usable.sort(key=lambda o: (-o.discount, o.coupon.expires_at, o.coupon.id))
    unusable.sort(key=lambda o: (o.coupon.voucher.amount_condition, o.coupon.id))
    return usable, unusable


def shop_orders_mine(*, user_id: int, last_id: int | None) -> tuple[list[ShopOrder], int | None]:
    """The caller's shop orders, newest first, scrolled like "my vouchers"."""
    mine = ShopOrder.objects.filter(user_id=user_id)
    if last_id is not None:
        mine = mine.filter(id__lt=last_id)
    page = list(mine.order_by("-id")[:SCROLL_PAGE])
    return page, (page[-1].id if len(page) == SCROLL_PAGE else None)


def shop_write_offs(*, shop_id: int, day: date) -> QuerySet[WriteOff]:
    """A shop's write-offs of one local day (TIME_ZONE), newest first, reversed included."""
    start = clock.start_of(day)
    return WriteOff.objects.filter(
        shop_id=shop_id, redeemed_at__gte=start, redeemed_at__lt=start + timedelta(days=1)
    ).order_by("-redeemed_at", "-id")
