"""Voucher writes and the periodic sale jobs. Every write path (API, admin, commands,
beat) comes through here; Redis follows the database only after commit."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext

from toolkit import clock
from toolkit.errors import Conflict, NotFound

from .caches import (
    ACTIVITIES_IDENT,
    activities_cache,
    activities_evict,
    shop_vouchers_changed,
    vouchers_changed,
)
from .errors import Code
from .models import Voucher, VoucherOrder
from .sale import buckets, stock
from .sale.shard import placement
from .sale.window import sale_window_evict
from .selectors import activities_document, preheat_candidates

# What a coupon holder was promised: fixed once the first coupon exists.
FROZEN_WITH_ORDERS = (
    "shop",
    "type",
    "actual_value",
    "discount_type",
    "amount_condition",
    "discount_amount",
    "discount_rate",
    "max_discount",
)


def voucher_create(*, data: dict[str, Any]) -> Voucher:
    """Create a voucher; a flash sale's stock is split into `buckets` (data's, else
    buckets.default_count), placed now and never moved (decision 309)."""
    data = dict(data)
    count = data.pop("buckets", None)
    with transaction.atomic():
        voucher = Voucher(**data)
        voucher.status = voucher.status_at(clock.now())
        voucher.save()
        if voucher.is_seckill:
            count = count or buckets.default_count(voucher.stock)
            if count > 1:
                shards = buckets.choose_shards(voucher.id, count)
                voucher.sale_shards = ",".join(map(str, shards))
                voucher.save(update_fields=["sale_shards"])
        _after_commit(voucher)
    return voucher


def voucher_update(*, voucher_id: int, data: dict[str, Any]) -> Voucher:
    """Change a voucher. A flash sale's stock and window are frozen once it has started
    (units may already be sold from Redis, and only the sale may change them then), and
    a voucher's shop and discount rule once it has coupons (their holders were promised
    that rule)."""
    with transaction.atomic():
        voucher = Voucher.objects.select_for_update().filter(pk=voucher_id).first()
        if voucher is None:
            raise NotFound(gettext("No such voucher."), code=Code.VOUCHER_NOT_FOUND)
        data = dict(data)
        buckets_now = len(placement(voucher.id, voucher.sale_shards))
        if data.pop("buckets", buckets_now) != buckets_now:
            raise Conflict(
                gettext("A sale's buckets are fixed when it is created."),
                code=Code.BUCKETS_FIXED,
            )
        changed = {name for name, value in data.items() if getattr(voucher, name) != value}
        started = voucher.status_at(clock.now()) != Voucher.Status.PENDING
        sale = changed & {"stock", "begin_time", "end_time", "type"}
        if voucher.is_seckill and started and sale:
            raise Conflict(
                gettext("%(fields)s cannot change once the sale has started.")
                % {"fields": ", ".join(sorted(sale))},
                code=Code.SALE_STARTED,
            )
        frozen = changed & set(FROZEN_WITH_ORDERS)
        if frozen and VoucherOrder.objects.filter(voucher_id=voucher_id).exists():
            raise Conflict(
                gettext(
                    "%(fields)s cannot change once coupons were issued; "
                    "void the voucher and create another."
                )
                % {"fields": ", ".join(sorted(frozen))},
                code=Code.RULE_FROZEN,
            )
        old_shop_id = voucher.shop_id
        for field, value in data.items():
            setattr(voucher, field, value)
        if voucher.status != Voucher.Status.VOID:
            voucher.status = voucher.status_at(clock.now())
        voucher.save()
        _after_commit(voucher, old_shop_id=old_shop_id)
    return voucher


def voucher_void(*, voucher_id: int) -> Voucher:
    """Withdraw a voucher (operators): no more sales or claims, whatever its times say.
    Coupons already held stay usable: their holders paid for them."""
    with transaction.atomic():
        updated = Voucher.objects.filter(pk=voucher_id).update(status=Voucher.Status.VOID)
        if not updated:
            raise NotFound(gettext("No such voucher."), code=Code.VOUCHER_NOT_FOUND)
        voucher = Voucher.objects.get(pk=voucher_id)
        _after_commit(voucher)
    return voucher


def voucher_delete_refusal(voucher: Voucher) -> Conflict | None:
    """Why the voucher cannot be deleted now, or None: its sale is on (void it first), or
    it has orders, persisted or still in the stream (void it instead: deleting it would
    strand accepted orders in the dead letters)."""
    if voucher.is_seckill and voucher.status_at(clock.now()) == Voucher.Status.ACTIVE:
        return Conflict(gettext("The sale is on: void it first."), code=Code.SALE_ACTIVE)
    has_buyers = voucher.is_seckill and stock.has_buyers(voucher)
    if has_buyers or VoucherOrder.objects.filter(voucher_id=voucher.id).exists():
        return _has_orders()
    return None


def _has_orders() -> Conflict:
    return Conflict(
        gettext("The voucher has orders: void it instead."), code=Code.VOUCHER_HAS_ORDERS
    )


def voucher_delete(*, voucher_id: int) -> None:
    """Delete a voucher nobody holds, and its Redis state (see `voucher_delete_refusal`)."""
    with transaction.atomic():
        voucher = Voucher.objects.select_for_update().filter(pk=voucher_id).first()
        if voucher is None:
            raise NotFound(gettext("No such voucher."), code=Code.VOUCHER_NOT_FOUND)
        if (refusal := voucher_delete_refusal(voucher)) is not None:
            raise refusal
        # A sale accepted since the check above holds a buyer: the script looks again and
        # removes the stock in the same step, so no sale can slip in after it.
        if voucher.is_seckill and not stock.stock_retire(voucher):
            raise _has_orders()
        vouchers_changed([voucher_id])
        shop_vouchers_changed([voucher.shop_id])
        shards = placement(voucher_id, voucher.sale_shards)
        voucher.delete()
        transaction.on_commit(lambda: _forget(voucher_id, shards), robust=True)


def _forget(voucher_id: int, shards: tuple[int, ...]) -> None:
    """A deleted voucher's Redis state: stock (a preheat may have reloaded it meanwhile),
    buyers, the cached sale window and the activity list that named it."""
    stock.stock_forget(voucher_id, shards)
    sale_window_evict(voucher_id)
    activities_evict()


def _after_commit(voucher: Voucher, *, old_shop_id: int | None = None) -> None:
    """In the writer's transaction: Redis follows the row once it commits."""
    vouchers_changed([voucher.id])
    shop_vouchers_changed({voucher.shop_id, old_shop_id or voucher.shop_id})

    def sync() -> None:
        if voucher.is_seckill:
            stock.stock_load([voucher])
        sale_window_evict(voucher.id)
        activities_evict()

    transaction.on_commit(sync, robust=True)


def activity_statuses_update() -> dict[str, int]:
    """Move stored statuses along the clock: pending -> active -> ended (void stays).

    Conditional UPDATEs, so concurrent runs and operator edits cannot step back.
    """
    now = clock.now()
    seckill = Voucher.objects.filter(type=Voucher.Kind.SECKILL)
    started = seckill.filter(status=Voucher.Status.PENDING, begin_time__lte=now, end_time__gt=now)
    ended = seckill.filter(
        Q(status=Voucher.Status.PENDING) | Q(status=Voucher.Status.ACTIVE), end_time__lte=now
    )
    return {
        "active": started.update(status=Voucher.Status.ACTIVE),
        "ended": ended.update(status=Voucher.Status.ENDED),
    }


def activities_preheat() -> int:
    """Refresh the preheated activity list (kept forever, logically expiring) and load
    the listed vouchers' stock into Redis; returns how many vouchers are listed."""
    vouchers = preheat_candidates()
    stock.stock_load(vouchers)
    activities_cache().put_logical(
        ACTIVITIES_IDENT,
        activities_document(vouchers),
        logical_ttl=settings.SECKILL_ACTIVITIES_TTL,
    )
    return len(vouchers)
