"""Voucher reads: a shop's vouchers and the flash-sale activity list, with live stock."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.utils.dateparse import parse_datetime

from dianping import clock
from dianping.errors import NotFound

from . import stock
from .caches import ACTIVITIES_IDENT, activities_cache
from .models import Voucher, sale_status
from .serializers import VoucherSerializer


def voucher_get(*, voucher_id: int) -> Voucher:
    voucher = Voucher.objects.filter(pk=voucher_id).first()
    if voucher is None:
        raise NotFound("No such voucher.", code="voucher_not_found")
    return voucher


def shop_vouchers(*, shop_id: int) -> list[dict[str, Any]]:
    vouchers = list(Voucher.objects.filter(shop_id=shop_id).exclude(status=Voucher.Status.VOID))
    return _with_live_state([VoucherSerializer(v).data for v in vouchers])


def preheat_candidates() -> list[Voucher]:
    """Seckill vouchers on sale now or starting within the preheat horizon, by begin time."""
    now = clock.now()
    horizon = now + timedelta(days=settings.SECKILL_PREHEAT_DAYS)
    return list(
        Voucher.objects.filter(type=Voucher.Kind.SECKILL, begin_time__lte=horizon, end_time__gt=now)
        .exclude(status=Voucher.Status.VOID)
        .order_by("begin_time", "id")
    )


def activities_document(vouchers: list[Voucher]) -> list[dict[str, Any]]:
    return [VoucherSerializer(v).data for v in vouchers]


def activities(*, tab: str) -> list[dict[str, Any]]:
    """`seizing` (on sale now) or `upcoming` (starting within the preheat horizon), ordered
    by begin time, from the preheated list; built on the spot if no preheat has run yet."""
    raw = activities_cache().get_logical(
        ACTIVITIES_IDENT,
        lambda: activities_document(preheat_candidates()),
        logical_ttl=settings.SECKILL_ACTIVITIES_TTL,
    )
    wanted = Voucher.Status.ACTIVE if tab == "seizing" else Voucher.Status.PENDING
    items = [
        item for item in _with_live_state(json.loads(raw or b"[]")) if item["status"] == wanted
    ]
    return sorted(items, key=lambda item: (item["begin_time"], item["id"]))


def _with_live_state(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Real-time status from the times, and remaining stock from Redis for seckill ones."""
    now = clock.now()
    seckill_ids = [item["id"] for item in items if item["type"] == Voucher.Kind.SECKILL]
    remaining = stock.live_stock(seckill_ids)
    for item in items:
        item["status"] = sale_status(
            kind=item["type"],
            stored=item["status"],
            begin=_parse(item["begin_time"]),
            end=_parse(item["end_time"]),
            now=now,
        )
        item["remaining"] = remaining.get(item["id"])
    return items


def _parse(value: Any) -> datetime | None:
    return value if value is None or isinstance(value, datetime) else parse_datetime(value)
