"""Order reads: one order for its owner, "my vouchers" by tab, the coupons that apply to a
bill, the caller's shop orders, and a shop's write-offs of a day."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

import orjson
from django.conf import settings
from django.db.models import QuerySet
from django.utils.translation import gettext

from shops.selectors import shop_raws
from toolkit import clock
from toolkit.api.scroll import SCROLL_PAGE  # "my vouchers" and shop orders alike
from toolkit.errors import Conflict, NotFound
from toolkit.redis import ids

from .. import documents
from ..caches import my_orders_cache
from ..errors import Code
from ..models import ShopOrder, VoucherOrder, WriteOff
from ..sale_orders import pending_order
from ..selectors import voucher_documents, voucher_now
from . import discounts

PENDING = "pending"  # the status shown while an accepted order waits in the stream


def order_get(*, order_id: int, user_id: int) -> VoucherOrder:
    """The caller's order from the database or, while it waits in the stream, an unsaved
    one with status `pending`. Anybody else's order is a 404."""
    order = (
        VoucherOrder.objects.select_related("voucher__shop")
        .filter(pk=order_id, user_id=user_id)
        .first()
    )
    if order is not None:
        return order
    pending = pending_order(order_id)
    if pending is not None:
        owner_id, voucher_id = pending
        if owner_id == user_id:
            created_at = datetime.fromtimestamp(ids.timestamp_of(order_id), tz=UTC)
            return VoucherOrder(
                id=order_id,
                user_id=user_id,
                voucher_id=voucher_id,
                status=PENDING,
                created_at=created_at,
            )
    raise NotFound(gettext("No such order."), code=Code.ORDER_NOT_FOUND)


def order_owned(*, order_id: int, user_id: int) -> VoucherOrder:
    """The caller's order for a move; 404, or 409 while it is still being placed (in the
    stream)."""
    order = (
        VoucherOrder.objects.select_related("voucher__shop")
        .filter(pk=order_id, user_id=user_id)
        .first()
    )
    if order is None:
        order_get(order_id=order_id, user_id=user_id)  # 404 unless it is pending:
        raise Conflict(
            gettext("The order is still being placed; try again in a moment."),
            code=Code.ORDER_PENDING,
        )
    return order


def order_owner(*, order_id: int, user_id: int | None = None) -> tuple[int, int] | None:
    """(voucher id, user id) of the order (the caller's, when `user_id` is given)."""
    orders = VoucherOrder.objects.filter(pk=order_id)
    if user_id is not None:
        orders = orders.filter(user_id=user_id)
    return orders.values_list("voucher_id", "user_id").first()


def my_vouchers(
    *, user_id: int, tab: str, last_id: int | None
) -> tuple[list[dict[str, Any]], int | None]:
    """The caller's vouchers as the API shows them, newest first, 10 at a time, scrolled
    by `last_id`, and the next page's `last_id` (None at the end): unused = paid, not
    used, still valid; used; expired = paid, unused, past validity; unpaid = grabbed,
    awaiting payment; cancelled (by the buyer or the pay timeout); refunded. From the
    user's cached orders and the vouchers' cached documents (no query on near-cache
    hits); from one query for a user with more orders than MY_ORDERS_CACHED."""
    now = clock.now()
    orders = _my_orders(user_id)
    if orders is None:
        return _my_vouchers_queried(user_id=user_id, tab=tab, last_id=last_id, now=now)
    wanted = documents.IN_TAB[tab]
    page = []
    for order in orders:
        if (last_id is None or order["id"] < last_id) and wanted(order, now):
            page.append(order)
            if len(page) == SCROLL_PAGE:
                break
    found = voucher_documents({order["voucher_id"] for order in page})
    vouchers = {voucher_id: voucher_now(doc, now=now) for voucher_id, doc in found.items()}
    names = _shop_names({doc["shop_id"] for doc in vouchers.values()})
    docs = []
    for order in page:
        voucher = vouchers[order["voucher_id"]]
        name = names.get(voucher["shop_id"], "")
        docs.append(documents.my_voucher_now(order, voucher, shop_name=name, now=now))
    return docs, (page[-1]["id"] if len(page) == SCROLL_PAGE else None)


def _shop_names(shop_ids: set[int]) -> dict[int, str]:
    """The shops' names for a page of cards, from the shop cache in one lookup (its near
    copies first: none for hot shops), never one per card (decision 465)."""
    raws = shop_raws(sorted(shop_ids))
    return {shop_id: orjson.loads(raw)["name"] for shop_id, raw in raws.items() if raw is not None}


def _my_orders(user_id: int) -> list[dict[str, Any]] | None:
    """The user's orders (`documents.order_document`), newest first; None when they have
    more than MY_ORDERS_CACHED."""

    def load() -> dict[str, Any]:
        rows = VoucherOrder.objects.filter(user_id=user_id).order_by("-id")
        rows = rows.values("id", "voucher_id", "status", *documents.ORDER_TIMES)
        orders = [documents.order_document(row) for row in rows[: settings.MY_ORDERS_CACHED + 1]]
        return {"orders": orders if len(orders) <= settings.MY_ORDERS_CACHED else None}

    raw = my_orders_cache().get(user_id, load)
    assert raw is not None  # only a loader returning None makes a miss, and this one never does
    return orjson.loads(raw)["orders"]


def _my_vouchers_queried(
    *, user_id: int, tab: str, last_id: int | None, now: datetime
) -> tuple[list[dict[str, Any]], int | None]:
    mine = VoucherOrder.objects.filter(user_id=user_id)
    if tab == "unpaid":
        mine = mine.filter(status=VoucherOrder.Status.UNPAID)
    elif tab == "unused":
        mine = mine.filter(status=VoucherOrder.Status.PAID, expires_at__gt=now)
    elif tab in ("used", "cancelled", "refunded"):  # the status alone: (user, status, id)
        mine = mine.filter(status=tab)
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
    ).select_related("voucher__shop")
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
    mine = ShopOrder.objects.filter(user_id=user_id).select_related("shop")
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
