"""Voucher reads: a shop's vouchers, the flash-sale activity list, the operators' list
and per-voucher order counts, with live stock."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

import orjson
from django.conf import settings
from django.db.models import Count, Q, QuerySet
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext

from shops.errors import ShopNotFound
from shops.models import Shop
from shops.selectors import shop_documents
from toolkit import clock
from toolkit.errors import NotFound

from . import documents
from .caches import (
    ACTIVITIES_IDENT,
    activities_cache,
    activities_remember,
    activities_snapshot,
    shop_vouchers_cache,
    voucher_cache,
)
from .errors import Code
from .models import Voucher, VoucherOrder, sale_status
from .sale import stock
from .serializers import VoucherSerializer


def voucher_get(*, voucher_id: int) -> Voucher:
    voucher = Voucher.objects.filter(pk=voucher_id).first()
    if voucher is None:
        raise NotFound(gettext("No such voucher."), code=Code.VOUCHER_NOT_FOUND)
    return voucher


def voucher_list(*, shop_id: int | None = None, status: str | None = None) -> QuerySet[Voucher]:
    """Operators' list, newest first; `status` is the real-time one (as `status_at` says),
    so a list filtered between two runs of the status job is never stale."""
    vouchers = Voucher.objects.order_by("-id")
    if shop_id is not None:
        vouchers = vouchers.filter(shop_id=shop_id)
    if status is not None:
        vouchers = vouchers.filter(_status_is(status, clock.now()))
    return vouchers


def _status_is(status: str, now: datetime) -> Q:
    if status == Voucher.Status.VOID:
        return Q(status=Voucher.Status.VOID)
    live = ~Q(status=Voucher.Status.VOID)
    seckill = Q(type=Voucher.Kind.SECKILL)
    if status == Voucher.Status.PENDING:
        return live & seckill & Q(begin_time__gt=now)
    if status == Voucher.Status.ENDED:
        return live & seckill & Q(end_time__lte=now)
    return live & (~seckill | Q(begin_time__lte=now, end_time__gt=now))


def shops_on_sale() -> list[int]:
    """Ids of the shops with a flash sale running now (preheated: settings.SHOP_PREHEAT_SOURCES)."""
    running = _status_is(Voucher.Status.ACTIVE, clock.now()) & Q(type=Voucher.Kind.SECKILL)
    return list(Voucher.objects.filter(running).values_list("shop_id", flat=True).distinct())


ORDER_STATUSES = [status.value for status in VoucherOrder.Status]


def order_counts(voucher_ids: list[int]) -> dict[int, dict[str, int]]:
    """Orders per voucher by status, plus `claimed` (all of them), in one grouped query."""
    counts = {vid: dict.fromkeys(("claimed", *ORDER_STATUSES), 0) for vid in voucher_ids}
    rows = (
        VoucherOrder.objects.filter(voucher_id__in=voucher_ids)
        .values_list("voucher_id", "status")
        .annotate(n=Count("id"))
        .order_by()
    )
    for voucher_id, status, n in rows:
        counts[voucher_id][status] = n
        counts[voucher_id]["claimed"] += n
    return counts


def remaining(vouchers: list[Voucher]) -> dict[int, int | None]:
    """Units left per voucher: live Redis stock for flash sales, the database's for
    normal vouchers (None: unlimited, or a sale's stock not loaded)."""
    live = stock.live_stock([v.id for v in vouchers if v.is_seckill])
    return {v.id: live.get(v.id) if v.is_seckill else v.stock for v in vouchers}


def shop_vouchers_listed(*, shop_id: int) -> list[dict[str, Any]]:
    """A shop's vouchers on offer, from the caches (near-cache hits cost no round trip),
    as `vouchers_now` completes them; 404 for a shop that does not exist (or no longer
    does), never an empty list."""

    def load() -> list[int] | None:
        listed = Voucher.objects.filter(shop_id=shop_id).exclude(status=Voucher.Status.VOID)
        ids = list(listed.values_list("id", flat=True))
        if not ids and shop_id not in shop_documents([shop_id]):
            return None  # no such shop: remembered only briefly, not as an empty list
        return ids

    raw = shop_vouchers_cache().get(shop_id, load)
    if raw is None:
        raise ShopNotFound()
    ids = orjson.loads(raw)
    if not ids and shop_id not in shop_documents([shop_id]):
        raise ShopNotFound()  # the shop's cache knows, and forgets a deleted shop at once
    found = voucher_documents(ids)
    return [found[i] for i in ids if i in found]


def voucher_documents(voucher_ids: Iterable[int]) -> dict[int, dict[str, Any]]:
    """The vouchers' cached documents (see `vouchers_now`), the missing ones loaded in
    one query; a voucher that no longer exists is left out."""

    def load(missing: list[int]) -> dict[int, dict[str, Any]]:
        rows = Voucher.objects.filter(pk__in=missing).values(*documents.voucher_columns())
        return {row["id"]: _cached_document(row) for row in rows}

    raws = voucher_cache().lookup_many(list(voucher_ids), load)
    return {voucher_id: orjson.loads(raw) for voucher_id, raw in raws.items() if raw is not None}


def _cached_document(row: dict[str, Any]) -> dict[str, Any]:
    """The document but for what the clock and the sale change; `stored` keeps the row's
    status for `sale_status`."""
    doc = documents.voucher_document(row, now=clock.now())
    doc["stored"] = row["status"]
    return doc


def seckill_ids(docs: list[dict[str, Any]]) -> list[int]:
    return [doc["id"] for doc in docs if doc["type"] == Voucher.Kind.SECKILL]


def vouchers_now(docs: list[dict[str, Any]], live: dict[int, int | None]) -> list[dict[str, Any]]:
    """Cached documents completed as the API lists them: `status` at this moment and
    `remaining`, `live` Redis stock for flash sales (None: not loaded), the database's for
    normal vouchers (None: no limit)."""
    now = clock.now()
    for doc in docs:
        voucher_now(doc, now=now)
        sale = doc["type"] == Voucher.Kind.SECKILL
        doc["remaining"] = live.get(doc["id"]) if sale else doc["stock"]
    return docs


def voucher_now(doc: dict[str, Any], *, now: datetime) -> dict[str, Any]:
    """A cached document with its `status` at `now` (VoucherSerializer's shape)."""
    doc["status"] = sale_status(
        kind=doc["type"],
        stored=doc.pop("stored"),
        begin=_parsed(doc["begin_time"]),
        end=_parsed(doc["end_time"]),
        now=now,
    )
    return doc


def _parsed(iso: str | None) -> datetime | None:
    return None if iso is None else datetime.fromisoformat(iso)


def preheat_candidates() -> list[Voucher]:
    """Seckill vouchers on sale now or starting within the preheat horizon, by begin time."""
    now = clock.now()
    horizon = now + timedelta(days=settings.SECKILL_PREHEAT_DAYS)
    return list(
        Voucher.objects.filter(type=Voucher.Kind.SECKILL, begin_time__lte=horizon, end_time__gt=now)
        .exclude(status=Voucher.Status.VOID)
        .order_by("begin_time", "id")
    )


# The key of a listed voucher's city in the preheated list: read by the per-city filter,
# never shown (decision 396).
CITY = "city_id"


def activities_document(vouchers: list[Voucher]) -> list[dict[str, Any]]:
    """The listed vouchers as the API shows them, each with its shop's city under CITY."""
    cities = dict(
        Shop.objects.filter(pk__in={v.shop_id for v in vouchers}).values_list("id", "city_id")
    )
    return [{**VoucherSerializer(v).data, CITY: cities.get(v.shop_id)} for v in vouchers]


def activities(*, tab: str, city_id: int, without_redis: bool = False) -> list[dict[str, Any]]:
    """`seizing` (on sale now) or `upcoming` (starting within the preheat horizon) at the
    shops of a city, ordered by begin time, each with its status as of now and its
    remaining stock: from this process's snapshot (at most SECKILL_ACTIVITIES_MAX_AGE
    old), else from the preheated list (built on the spot if no preheat has run yet) and
    the sales' live stock. `without_redis` (Redis unreachable): from the database, with
    the stock it holds. One list of every city, filtered here (decision 396)."""
    items = _database_activities() if without_redis else activities_snapshot()
    if items is None:
        items = _live_activities()
        activities_remember(items)
    now = clock.now()
    wanted = Voucher.Status.ACTIVE if tab == "seizing" else Voucher.Status.PENDING
    chosen = []
    for item in items:
        # None: listed before the list knew cities (a deploy ago, until its next rebuild).
        if item["city_id"] not in (None, city_id):
            continue
        status = sale_status(
            kind=item["type"], stored=item["status"], begin=item["begin"], end=item["end"], now=now
        )
        if status == wanted:
            chosen.append({**item["fields"], "status": status, "remaining": item["remaining"]})
    return chosen


def _live_activities() -> list[dict[str, Any]]:
    """The preheated list, in begin-time order, with the sales' stock read live."""
    raw = activities_cache().get_logical(
        ACTIVITIES_IDENT,
        lambda: activities_document(preheat_candidates()),
        logical_ttl=settings.SECKILL_ACTIVITIES_TTL,
    )
    listed = orjson.loads(raw or b"[]")
    sales = [i["id"] for i in listed if i["type"] == Voucher.Kind.SECKILL]
    return _activity_items(listed, stock.live_stock_or_stored(sales, listed))


def _database_activities() -> list[dict[str, Any]]:
    """The list as the preheat builds it, each sale's stock as the database holds it (the
    drain's: behind Redis's by the orders still pending)."""
    return _activity_items(activities_document(preheat_candidates()), {})


def _activity_items(
    listed: list[dict[str, Any]], live: dict[int, int | None]
) -> list[dict[str, Any]]:
    listed = sorted(listed, key=lambda item: (item["begin_time"], item["id"]))
    return [
        {
            "city_id": item.pop(CITY, None),  # before `fields`: the API never shows it
            "fields": item,
            "type": item["type"],
            "status": item["status"],
            "begin": _parse(item["begin_time"]),
            "end": _parse(item["end_time"]),
            "remaining": live.get(item["id"]) if item["id"] in live else item["stock"],
        }
        for item in listed
    ]


def _parse(value: Any) -> datetime | None:
    return value if value is None or isinstance(value, datetime) else parse_datetime(value)
