"""A merchant's dashboard of one shop: per local day (TIME_ZONE) over a window, the shop
page's unique visitors and views, coupons claimed, flash-sale orders and redemptions;
the rating histogram now, the weekly average rating over the last eight weeks, and the
newest reviews that await the shop's reply.

The cost is bounded whatever the window: one aggregate query per source (each day is a
conditional COUNT over the day's local bounds, computed here, so the database needs no
time zone tables and no per-day query), and pipelined Redis reads for UV and PV
(decisions 341-344)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

from django.db.models import Avg, Count, Q
from django.utils import timezone

from blogs.models import Blog, Visibility
from dianping import clock
from shops.models import Shop
from signin.stats import uv_stats
from vouchers.models import Voucher, VoucherOrder, WriteOff

WINDOWS = (7, 30)  # the days a dashboard spans
TREND_WEEKS = 8
AWAITING_REPLY_SHOWN = 10
# The per-day numbers, in the order of the CSV's columns after the date.
DAY_FIELDS = ("uv", "pv", "claims", "sales", "redemptions")


@dataclass(frozen=True, slots=True)
class _Span:
    start: datetime
    end: datetime


def _midnight(day: date) -> datetime:
    """The local midnight that starts `day` (in TIME_ZONE), aware."""
    return datetime.combine(day, time.min, tzinfo=timezone.get_default_timezone())


def _span(first: date, last: date) -> _Span:
    """From the start of `first` to the end of `last`, local days both."""
    return _Span(_midnight(first), _midnight(last + timedelta(days=1)))


def _counts_by_span(queryset: Any, field: str, spans: list[_Span], **extra: Q) -> dict[str, list]:
    """One query: for each span, COUNT of the rows whose `field` falls in it, and for each
    `extra` filter the COUNT of those that also match it."""
    window = Q(**{f"{field}__gte": spans[0].start, f"{field}__lt": spans[-1].end})
    columns: dict[str, Count] = {}
    for i, span in enumerate(spans):
        inside = Q(**{f"{field}__gte": span.start, f"{field}__lt": span.end})
        columns[f"all_{i}"] = Count("pk", filter=inside)
        for name, condition in extra.items():
            columns[f"{name}_{i}"] = Count("pk", filter=inside & condition)
    row = queryset.filter(window).aggregate(**columns)
    names = ["all", *extra]
    return {name: [row[f"{name}_{i}"] for i in range(len(spans))] for name in names}


def _reviews(shop_id: int) -> Any:
    """The shop's reviews: its visible notes that rate it."""
    return Blog.objects.filter(shop_id=shop_id, status=Visibility.VISIBLE, rating__isnull=False)


def dashboard_days(
    *, shop_id: int, days: int, today: date | None = None
) -> tuple[list[dict[str, Any]], int]:
    """The per-day numbers over the `days` local days ending today, oldest first, and the
    window's unique visitors (a visitor of several days counts once)."""
    today = today or clock.today()
    dates = [today - timedelta(days=i) for i in range(days - 1, -1, -1)]
    spans = [_span(d, d) for d in dates]
    traffic = uv_stats(end=today, days=days, shop_id=shop_id)
    visits = traffic["by_day"]
    orders = _counts_by_span(
        VoucherOrder.objects.filter(voucher__shop_id=shop_id),
        "created_at",
        spans,
        sales=Q(voucher__type=Voucher.Kind.SECKILL),
    )
    # A reversed write-off was undone: only those standing count as redemptions.
    redeemed = _counts_by_span(
        WriteOff.objects.filter(shop_id=shop_id, standing=True), "redeemed_at", spans
    )
    rows = [
        {
            "date": d.isoformat(),
            "uv": visits[i]["uv"],
            "pv": visits[i]["pv"],
            "claims": orders["all"][i],
            "sales": orders["sales"][i],
            "redemptions": redeemed["all"][i],
        }
        for i, d in enumerate(dates)
    ]
    return rows, traffic["uv"]


def rating_trend(*, shop_id: int, today: date | None = None) -> list[dict[str, Any]]:
    """The average stars of the reviews written in each of the last TREND_WEEKS weeks
    (seven local days each, the last ending today), oldest first; `average` is None for a
    week without reviews. One query."""
    today = today or clock.today()
    weeks = [
        (today - timedelta(days=7 * w + 6), today - timedelta(days=7 * w))
        for w in range(TREND_WEEKS - 1, -1, -1)
    ]
    spans = [_span(first, last) for first, last in weeks]
    columns: dict[str, Any] = {}
    for i, span in enumerate(spans):
        inside = Q(created_at__gte=span.start, created_at__lt=span.end)
        columns[f"avg_{i}"] = Avg("rating", filter=inside)
        columns[f"count_{i}"] = Count("pk", filter=inside)
    row = _reviews(shop_id).filter(created_at__gte=spans[0].start).aggregate(**columns)
    return [
        {
            "week_start": first.isoformat(),
            "week_end": last.isoformat(),
            "average": None if row[f"avg_{i}"] is None else round(float(row[f"avg_{i}"]), 2),
            "reviews": row[f"count_{i}"],
        }
        for i, (first, last) in enumerate(weeks)
    ]


def awaiting_reply(*, shop_id: int) -> tuple[list[Blog], int]:
    """The newest AWAITING_REPLY_SHOWN reviews the shop has not replied to (a reply a
    moderator hid still counts as the shop's answer), with their authors, and how many
    await in all."""
    waiting = _reviews(shop_id).filter(reply__isnull=True)
    newest = list(
        waiting.select_related("user").order_by("-created_at", "-id")[:AWAITING_REPLY_SHOWN]
    )
    total = len(newest) if len(newest) < AWAITING_REPLY_SHOWN else waiting.count()
    return newest, total


def shop_dashboard(*, shop: Shop, days: int) -> dict[str, Any]:
    """Everything the dashboard shows of `shop` (one the caller runs: merchants.access)."""
    today = clock.today()
    by_day, window_uv = dashboard_days(shop_id=shop.id, days=days, today=today)
    totals = {name: sum(day[name] for day in by_day) for name in DAY_FIELDS}
    reviews, waiting = awaiting_reply(shop_id=shop.id)
    return {
        "shop": {"id": shop.id, "name": shop.name},
        "days": days,
        "date_from": by_day[0]["date"],
        "date_to": by_day[-1]["date"],
        "totals": {**totals, "uv": window_uv},
        "by_day": by_day,
        "ratings": {
            "score": shop.score,
            "histogram": [getattr(shop, f"rating_{stars}") for stars in range(1, 6)],
        },
        "rating_trend": rating_trend(shop_id=shop.id, today=today),
        "awaiting_reply": reviews,
        "awaiting_reply_count": waiting,
    }
