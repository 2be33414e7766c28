"""Voucher writes and the periodic sale jobs. Every write path (API, admin, commands,
beat) comes through here; Redis follows the database only after commit."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q

from dianping import clock
from dianping.errors import Conflict, NotFound

from . import stock
from .caches import ACTIVITIES_IDENT, activities_cache
from .models import Voucher
from .seckill import sale_window_evict
from .selectors import activities_document, preheat_candidates


def voucher_create(*, data: dict[str, Any]) -> Voucher:
    with transaction.atomic():
        voucher = Voucher(**data)
        voucher.status = voucher.status_at(clock.now())
        voucher.save()
        _after_commit(voucher)
    return voucher


def voucher_update(*, voucher_id: int, data: dict[str, Any]) -> Voucher:
    """Change a voucher. Its stock is frozen once its sale has started: units may
    already be sold from Redis, and only the sale itself may change them then."""
    with transaction.atomic():
        voucher = Voucher.objects.select_for_update().filter(pk=voucher_id).first()
        if voucher is None:
            raise NotFound("No such voucher.", code="voucher_not_found")
        started = voucher.status_at(clock.now()) != Voucher.Status.PENDING
        if voucher.is_seckill and started:
            for name in ("stock", "begin_time", "end_time", "type"):
                if name in data and data[name] != getattr(voucher, name):
                    raise Conflict(
                        f"{name} cannot change once the sale has started.", code="sale_started"
                    )
        for field, value in data.items():
            setattr(voucher, field, value)
        if voucher.status != Voucher.Status.VOID:
            voucher.status = voucher.status_at(clock.now())
        voucher.save()
        _after_commit(voucher)
    return voucher


def voucher_void(*, voucher_id: int) -> Voucher:
    """Cancel a sale (operators); it stays void whatever its times say."""
    with transaction.atomic():
        updated = Voucher.objects.filter(pk=voucher_id).update(status=Voucher.Status.VOID)
        if not updated:
            raise NotFound("No such voucher.", code="voucher_not_found")
        voucher = Voucher.objects.get(pk=voucher_id)
        _after_commit(voucher)
    return voucher


def _after_commit(voucher: Voucher) -> None:
    def sync() -> None:
        if voucher.is_seckill:
            stock.stock_load([voucher])
        sale_window_evict(voucher.id)
        activities_cache().evict(ACTIVITIES_IDENT)

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
