"""The beat jobs' notifications: coupons about to expire, watched sales about to start,
and a shop's own sales started or sold out (to its owners). Each finds its work through
an index, in bounded batches, and tells each user once (the dedup key; for watched sales
also the watch's `notified_at`)."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q

from shops.models import ShopStaff
from toolkit import clock
from vouchers.models import Voucher, VoucherOrder
from vouchers.sale import stock

from .models import Kind, Notification, SaleWatch
from .services import dedup_key, notifications_add_many

COUPON_WARNING = timedelta(hours=24)
SALE_WARNING = timedelta(minutes=10)
# How long after its start a sale still counts as just started for its owners (runs
# missed during an outage shorter than this still tell).
STARTED_WITHIN = timedelta(hours=1)


def coupons_expiring_notify(*, batch: int | None = None, max_batches: int = 20) -> int:
    """Tell owners of unused coupons (paid, not used) expiring within 24 h, once per
    coupon. Walks the window by (expires_at, id) on the `voucher_order_status_expiry`
    index, `batch` coupons a query, at most `max_batches` a run (the next run goes on).
    Returns how many were told."""
    batch = batch or settings.NOTIFICATIONS_BATCH
    now = clock.now()
    window = VoucherOrder.objects.filter(
        status=VoucherOrder.Status.PAID, expires_at__gt=now, expires_at__lte=now + COUPON_WARNING
    ).order_by("expires_at", "id")
    told = 0
    after = None
    for _ in range(max_batches):
        rows = window
        if after is not None:
            rows = rows.filter(Q(expires_at__gt=after[0]) | Q(expires_at=after[0], id__gt=after[1]))
        coupons = list(rows.values_list("expires_at", "id", "user_id", "voucher_id")[:batch])
        if not coupons:
            break
        after = coupons[-1][:2]
        told += notifications_add_many(
            [
                Notification(
                    recipient_id=user_id,
                    kind=Kind.COUPON_EXPIRING,
                    dedup_key=dedup_key(Kind.COUPON_EXPIRING, order_id),
                    voucher_id=voucher_id,
                    order_id=order_id,
                )
                for _, order_id, user_id, voucher_id in coupons
            ]
        )
        if len(coupons) < batch:
            break
    return told


def sales_starting_notify(*, batch: int | None = None) -> int:
    """Tell watchers of flash sales starting within 10 minutes, once per watch: a batch of
    watches is claimed (`notified_at`, so later runs skip it) and notified in one
    transaction, so a failure leaves it for the next run; two racing runs tell each
    watcher once (the unique key). Returns how many were told."""
    batch = batch or settings.NOTIFICATIONS_BATCH
    now = clock.now()
    starting = Voucher.objects.filter(
        type=Voucher.Kind.SECKILL,
        status=Voucher.Status.PENDING,  # void ones are not starting; the index's order
        begin_time__gt=now,
        begin_time__lte=now + SALE_WARNING,
    ).values_list("id", flat=True)
    told = 0
    for voucher_id in starting:
        while True:
            due = SaleWatch.objects.filter(voucher_id=voucher_id, notified_at__isnull=True)
            watches = list(due.values_list("id", "user_id")[:batch])
            if not watches:
                break
            key = dedup_key(Kind.SALE_STARTING, voucher_id)
            with transaction.atomic():
                due.filter(id__in=[w for w, _ in watches]).update(notified_at=now)
                # A watch made again after its reminder went out (unwatched, watched again)
                # is claimed but not told twice (notifications_add_many skips it).
                told += notifications_add_many(
                    [
                        Notification(
                            recipient_id=user_id,
                            kind=Kind.SALE_STARTING,
                            voucher_id=voucher_id,
                            dedup_key=key,
                        )
                        for _, user_id in watches
                    ]
                )
    return told


def shop_sales_notify(*, batch: int | None = None) -> int:
    """Tell a shop's owners that a flash sale of theirs started (SALE_STARTED: stored
    active, begun within the last hour), and that a running one sold out (SALE_SOLD_OUT:
    no unit left in Redis), once per sale each. Off the sale's hot path: one query for
    the running sales, one Redis round trip for their stock (`live_stock`), one for the
    owners; at most `batch` sales a run. Returns how many were told."""
    batch = batch or settings.NOTIFICATIONS_BATCH
    now = clock.now()
    running = list(
        Voucher.objects.filter(
            type=Voucher.Kind.SECKILL,
            status=Voucher.Status.ACTIVE,  # moved along by the status job; void never is
            begin_time__lte=now,
            end_time__gt=now,
            shop__staff__role=ShopStaff.Role.OWNER,
        )
        .distinct()
        .order_by("-begin_time", "-id")
        .values_list("id", "shop_id", "begin_time")[:batch]
    )
    if not running:
        return 0
    left = stock.live_stock([voucher_id for voucher_id, _, _ in running])
    owners: dict[int, list[int]] = {}
    for shop_id, user_id in ShopStaff.objects.filter(
        shop_id__in={shop_id for _, shop_id, _ in running}, role=ShopStaff.Role.OWNER
    ).values_list("shop_id", "user_id"):
        owners.setdefault(shop_id, []).append(user_id)
    events = []
    for voucher_id, shop_id, begin in running:
        if begin is not None and begin > now - STARTED_WITHIN:
            events.append((Kind.SALE_STARTED, voucher_id, shop_id))
        if left.get(voucher_id) == 0:
            events.append((Kind.SALE_SOLD_OUT, voucher_id, shop_id))
    return notifications_add_many(
        [
            Notification(
                recipient_id=owner_id,
                kind=kind,
                dedup_key=dedup_key(kind, voucher_id),
                voucher_id=voucher_id,
                shop_id=shop_id,
            )
            for kind, voucher_id, shop_id in events
            for owner_id in owners.get(shop_id, [])
        ]
    )
