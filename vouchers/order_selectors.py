"""Order reads: one order for its owner, and "my vouchers" by tab."""

from __future__ import annotations

from datetime import UTC, datetime

from dianping import clock
from dianping.errors import NotFound
from dianping.redis import ids, keys
from dianping.redis.client import get_redis

from .models import VoucherOrder
from .shard import pending_field, pending_owner, shard_of_order

MY_VOUCHERS_PAGE = 10
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
    raise NotFound("No such order.", code="order_not_found")


def my_vouchers(
    *, user_id: int, tab: str, last_id: int | None
) -> tuple[list[VoucherOrder], int | None]:
    """The caller's vouchers, newest first, 10 at a time, scrolled by `last_id`, and the
    next page's `last_id` (None at the end): unused = paid, not used, still valid; used;
    expired = paid, unused, past validity; unpaid = grabbed, awaiting payment."""
    now = clock.now()
    mine = VoucherOrder.objects.filter(user_id=user_id).select_related("voucher")
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
    page = list(mine.order_by("-id")[:MY_VOUCHERS_PAGE])
    return page, (page[-1].id if len(page) == MY_VOUCHERS_PAGE else None)
