"""A merchant's dashboard of one shop: per local day (TIME_ZONE) over a window, the shop
page's unique visitors and views, coupons claimed, flash-sale orders and redemptions;
the rating histogram now, the weekly average rating over the last eight weeks, and the
newest reviews that await the shop's reply (decisions 341, 343, 344).

The closed days' numbers come from Redis (merchants/dashboard_cache.py), read in the
round trip that reads UV and PV; today's, and any day the cache lacks, are counted in
one grouped query per source (coupons, write-offs, reviews). A read so costs the same
few queries and one round trip whatever the window (decisions 400-402)."""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.db import connection
from django.db.models import Aggregate, Count, Q, Sum
from django.db.models.functions import TruncHour
from django.utils import timezone

from blogs.models import Blog, Visibility
from dianping import clock
from shops.models import Shop
from signin.stats import uv_stats_with
from vouchers.models import Voucher, VoucherOrder, WriteOff

from . import dashboard_cache
from .dashboard_cache import Numbers

WINDOWS = (7, 30)  # the days a dashboard spans
TREND_WEEKS = 8
AWAITING_REPLY_SHOWN = 10
# The per-day numbers, in the order of the CSV's columns after the date.
DAY_FIELDS = ("uv", "pv", "claims", "sales", "redemptions")
# MariaDB's AVG of integers: a DECIMAL of div_precision_increment (4) places, rounded half up.
_AVG_PLACES = Decimal("0.0001")

# A column of a per-day count: (aggregate, its source, a filter or None).
Column = tuple[type[Aggregate], str, Q | None]


@dataclass(frozen=True, slots=True)
class _Span:
    start: datetime
    end: datetime


@dataclass(frozen=True, slots=True)
class _Numbers:
    rows: list[dict[str, Any]]  # per day, oldest first
    window_uv: int
    trend: list[dict[str, Any]]  # empty unless asked for


def _midnight(day: date) -> datetime:
    """The local midnight that starts `day` (in TIME_ZONE), aware."""
    return datetime.combine(day, time.min, tzinfo=timezone.get_default_timezone())


def _span(first: date, last: date) -> _Span:
    """From the start of `first` to the end of `last`, local days both."""
    return _Span(_midnight(first), _midnight(last + timedelta(days=1)))


def _on_the_hour(moment: datetime) -> bool:
    return moment.astimezone(UTC).time().replace(hour=0) == time.min


def _per_day(queryset: Any, field: str, days: list[date], **columns: Column) -> list[Numbers]:
    """One query: for each of `days` (consecutive, oldest first), each column's aggregate
    over the rows whose `field` falls in that local day, in the columns' order.

    The rows are aggregated per UTC hour, which the database computes in its own zone (it
    needs no time zone tables), and the hours summed into local days here. Where a local
    midnight falls inside a UTC hour (a zone half an hour off), each day is a conditional
    aggregate over its bounds instead."""
    spans = [_span(day, day) for day in days]
    window = Q(**{f"{field}__gte": spans[0].start, f"{field}__lt": spans[-1].end})
    names = list(columns)
    if not all(_on_the_hour(moment) for moment in [*(s.start for s in spans), spans[-1].end]):
        aggregates = {
            f"{name}_{i}": function(source, filter=inside & (condition or Q()))
            for i, span in enumerate(spans)
            for inside in [Q(**{f"{field}__gte": span.start, f"{field}__lt": span.end})]
            for name, (function, source, condition) in columns.items()
        }
        row = queryset.filter(window).aggregate(**aggregates)
        return [tuple(row[f"{name}_{i}"] or 0 for name in names) for i in range(len(days))]
    hours = (
        queryset.filter(window)
        .annotate(hour=TruncHour(field, tzinfo=UTC))
        .values("hour")
        .annotate(
            **{
                f"n_{name}": function(source, filter=condition)
                for name, (function, source, condition) in columns.items()
            }
        )
        .order_by()  # no model ordering in the GROUP BY
    )
    starts = [span.start for span in spans]
    sums = [[0] * len(names) for _ in days]
    for row in hours:
        day = sums[bisect_right(starts, row["hour"]) - 1]
        for k, name in enumerate(names):
            day[k] += row[f"n_{name}"] or 0
    return [tuple(day) for day in sums]


def _days(first: date, last: date) -> list[date]:
    return [first + timedelta(days=i) for i in range((last - first).days + 1)]


def _tallies(shop_id: int, first: date, last: date) -> dict[date, Numbers]:
    """(claims, sales, redemptions) of each local day from `first` to `last`: one query
    for the coupons, one for the write-offs."""
    days = _days(first, last)
    orders = _per_day(
        VoucherOrder.objects.filter(voucher__shop_id=shop_id),
        "created_at",
        days,
        claims=(Count, "pk", None),
        sales=(Count, "pk", Q(voucher__type=Voucher.Kind.SECKILL)),
    )
    # A reversed write-off was undone: only those standing count as redemptions.
    redeemed = _per_day(
        WriteOff.objects.filter(shop_id=shop_id, standing=True),
        "redeemed_at",
        days,
        redemptions=(Count, "pk", None),
    )
    return {day: orders[i] + redeemed[i] for i, day in enumerate(days)}


def _ratings(shop_id: int, first: date, last: date) -> dict[date, Numbers]:
    """(reviews, stars summed) of the reviews written on each local day from `first` to
    `last`: one query."""
    days = _days(first, last)
    rated = _per_day(
        _reviews(shop_id),
        "created_at",
        days,
        reviews=(Count, "pk", None),
        stars=(Sum, "rating", None),
    )
    return dict(zip(days, rated, strict=True))


def _average(stars: int, reviews: int) -> float:
    """The mean as the database's AVG gives it, which the trend showed before it was
    summed from days: MariaDB's is a DECIMAL of 4 places, SQLite's a double."""
    if connection.vendor == "mysql":
        return float((Decimal(stars) / reviews).quantize(_AVG_PLACES, rounding=ROUND_HALF_UP))
    return stars / reviews


def _trend(today: date, ratings: dict[date, Numbers]) -> list[dict[str, Any]]:
    """The average stars of the reviews written in each of the last TREND_WEEKS weeks
    (seven local days each, the last ending today), oldest first; `average` is None for a
    week without reviews. `ratings` holds each of those days' (reviews, stars)."""
    weeks = []
    for w in range(TREND_WEEKS - 1, -1, -1):
        first, last = today - timedelta(days=7 * w + 6), today - timedelta(days=7 * w)
        reviews = sum(ratings[day][0] for day in _days(first, last))
        stars = sum(ratings[day][1] for day in _days(first, last))
        weeks.append(
            {
                "week_start": first.isoformat(),
                "week_end": last.isoformat(),
                "average": round(_average(stars, reviews), 2) if reviews else None,
                "reviews": reviews,
            }
        )
    return weeks


def _reviews(shop_id: int) -> Any:
    """The shop's reviews: its visible notes that rate it."""
    return Blog.objects.filter(shop_id=shop_id, status=Visibility.VISIBLE, rating__isnull=False)


def _numbers(*, shop_id: int, days: int, today: date, trend: bool) -> _Numbers:
    """The window's rows and visitors (and the rating trend, if asked): the closed days
    from the cache, read with UV and PV in one round trip; today and whatever the cache
    lacked counted in the database, and kept unless evicted meanwhile."""
    dates = [today - timedelta(days=i) for i in range(days - 1, -1, -1)]
    closed = dates[:-1]
    rated = [today - timedelta(days=i) for i in range(7 * TREND_WEEKS - 1, 0, -1)] if trend else []
    traffic, replies = uv_stats_with(
        end=today,
        days=days,
        shop_id=shop_id,
        piggyback=lambda pipe: dashboard_cache.queue_read(pipe, shop_id, closed, rated),
    )
    cached = dashboard_cache.parse(replies, closed, rated)
    missing = [day for day in closed if day not in cached.days]
    counted = _tallies(shop_id, missing[0] if missing else today, today)
    unrated = [day for day in rated if day not in cached.ratings]
    recounted = _ratings(shop_id, unrated[0] if unrated else today, today) if trend else {}
    if missing or unrated:
        dashboard_cache.store(
            shop_id,
            cached.version,
            days={day: counted[day] for day in missing},
            ratings={day: recounted[day] for day in unrated},
        )
    tallies = {**cached.days, **counted}  # today's, and those counted now, fresh
    visits = traffic["by_day"]
    rows = [
        {
            "date": d.isoformat(),
            "uv": visits[i]["uv"],
            "pv": visits[i]["pv"],
            "claims": tallies[d][0],
            "sales": tallies[d][1],
            "redemptions": tallies[d][2],
        }
        for i, d in enumerate(dates)
    ]
    weeks = _trend(today, {**cached.ratings, **recounted}) if trend else []
    return _Numbers(rows, traffic["uv"], weeks)


def dashboard_days(
    *, shop_id: int, days: int, today: date | None = None
) -> tuple[list[dict[str, Any]], int]:
    """The per-day numbers over the `days` local days ending today, oldest first, and the
    window's unique visitors (a visitor of several days counts once)."""
    numbers = _numbers(shop_id=shop_id, days=days, today=today or clock.today(), trend=False)
    return numbers.rows, numbers.window_uv


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
    numbers = _numbers(shop_id=shop.id, days=days, today=clock.today(), trend=True)
    by_day = numbers.rows
    totals = {name: sum(day[name] for day in by_day) for name in DAY_FIELDS}
    reviews, waiting = awaiting_reply(shop_id=shop.id)
    return {
        "shop": {"id": shop.id, "name": shop.name},
        "days": days,
        "date_from": by_day[0]["date"],
        "date_to": by_day[-1]["date"],
        "totals": {**totals, "uv": numbers.window_uv},
        "by_day": by_day,
        "ratings": {
            "score": shop.score,
            "histogram": [getattr(shop, f"rating_{stars}") for stars in range(1, 6)],
        },
        "rating_trend": numbers.trend,
        "awaiting_reply": reviews,
        "awaiting_reply_count": waiting,
    }
