"""A merchant's dashboard of one shop: per local day (TIME_ZONE) over a window, the shop
page's unique visitors and views, coupons claimed, flash-sale orders and redemptions;
the rating histogram now, the weekly average rating over the last eight weeks, and the
newest reviews that await the shop's reply (decisions 341, 343, 344).

The closed days' numbers come from Redis (merchants/dashboard_cache.py), read in the
round trip that reads UV and PV; today's, and any day the cache lacks, are counted in
one query over the three sources (coupons, write-offs, reviews) compiled once. A read so
costs the same few queries and one round trip whatever the window (decisions 400-403)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.db import connection
from django.db.models import Aggregate, Count, Q, Sum, Value
from django.db.models.functions import TruncHour
from django.utils import timezone

from blogs.models import Blog, Visibility
from shops.models import Shop
from signin.stats import uv_stats_with
from toolkit import clock
from toolkit.prepared import PreparedRead
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
_DAY = timedelta(days=1)

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


@dataclass(frozen=True, slots=True)
class _Source:
    """Rows a day's numbers count (of one shop: `rows(shop_id)`), the stamp that puts a
    row on a day, and the columns of that day's numbers, in their order."""

    rows: Callable[[int], Any]
    field: str
    columns: tuple[Column, ...]


_SOURCES = (
    _Source(
        lambda shop_id: VoucherOrder.objects.filter(voucher__shop_id=shop_id),
        "created_at",
        ((Count, "pk", None), (Count, "pk", Q(voucher__type=Voucher.Kind.SECKILL))),
    ),
    # A reversed write-off was undone: only those standing count as redemptions.
    _Source(
        lambda shop_id: WriteOff.objects.filter(shop_id=shop_id, standing=True),
        "redeemed_at",
        ((Count, "pk", None),),
    ),
    _Source(
        lambda shop_id: _reviews(shop_id),
        "created_at",
        ((Count, "pk", None), (Sum, "rating", None)),
    ),
)
_WIDTH = max(len(source.columns) for source in _SOURCES)


def _hourly(*parts: tuple[int, datetime, datetime]) -> Any:
    """The first len(parts) sources' aggregates per UTC hour, each of the rows of its
    part's shop between its part's bounds, as (source, hour, column, ...) rows joined by
    UNION ALL. The database truncates to the hour in its own zone (UTC): it needs no time
    zone tables."""
    querysets = []
    for k, (source, (shop_id, start, end)) in enumerate(zip(_SOURCES, parts, strict=False)):
        columns = {
            f"c{j}": function(column, filter=condition)
            for j, (function, column, condition) in enumerate(source.columns)
        }
        padding = {f"c{j}": Value(0) for j in range(len(source.columns), _WIDTH)}
        querysets.append(
            source.rows(shop_id)
            .filter(**{f"{source.field}__gte": start, f"{source.field}__lt": end})
            .annotate(source=Value(k), hour=TruncHour(source.field, tzinfo=UTC))
            .values("source", "hour")
            .annotate(**columns, **padding)
            .order_by()  # no model ordering in the GROUP BY
            .values_list("source", "hour", *(f"c{j}" for j in range(_WIDTH)))
        )
    return querysets[0].union(*querysets[1:], all=True)


# Compiled once (decision 403): the coupons and write-offs, and the reviews too. A shop id
# and two bounds a source, each its own parameter.
_TALLIES = PreparedRead(
    lambda s0, f0, t0, s1, f1, t1: _hourly((s0, f0, t0), (s1, f1, t1)),
    times=("f0", "t0", "f1", "t1"),
)
_ALL = PreparedRead(
    lambda s0, f0, t0, s1, f1, t1, s2, f2, t2: _hourly((s0, f0, t0), (s1, f1, t1), (s2, f2, t2)),
    times=("f0", "t0", "f1", "t1", "f2", "t2"),
)


def _per_day(shop_id: int, ranges: list[list[date]]) -> list[list[Numbers]]:
    """The numbers of each of the first len(ranges) sources on each day of its range
    (consecutive days, oldest first), in one query for all of them: the rows aggregated
    per UTC hour, the hours summed into local days here. Where a local midnight falls
    inside a UTC hour (a zone half an hour off), one query a source of a conditional
    aggregate per day instead."""
    midnights = [[_midnight(day) for day in [*days, days[-1] + _DAY]] for days in ranges]
    if not all(_on_the_hour(moment) for bounds in midnights for moment in bounds):
        return [
            _per_span(source, shop_id, days) for source, days in zip(_SOURCES, ranges, strict=False)
        ]
    values: dict[str, int | datetime] = {}
    for k, bounds in enumerate(midnights):
        values |= {f"s{k}": shop_id, f"f{k}": bounds[0], f"t{k}": bounds[-1]}
    rows = (_ALL if len(ranges) == len(_SOURCES) else _TALLIES).rows(**values)
    sums = [
        [[0] * len(source.columns) for _ in days]
        for source, days in zip(_SOURCES, ranges, strict=False)
    ]
    for k, hour, *numbers in rows:
        day = sums[k][bisect_right(midnights[k], hour) - 1]
        for j in range(len(day)):
            day[j] += int(numbers[j] or 0)
    return [[tuple(day) for day in days] for days in sums]


def _per_span(source: _Source, shop_id: int, days: list[date]) -> list[Numbers]:
    """One query: each column's aggregate over each day's bounds."""
    field, aggregates = source.field, {}
    for i, day in enumerate(days):
        span = _span(day, day)
        inside = Q(**{f"{field}__gte": span.start, f"{field}__lt": span.end})
        for j, (function, column, condition) in enumerate(source.columns):
            aggregates[f"c{j}_{i}"] = function(column, filter=inside & (condition or Q()))
    window = _span(days[0], days[-1])
    row = (
        source.rows(shop_id)
        .filter(**{f"{field}__gte": window.start, f"{field}__lt": window.end})
        .aggregate(**aggregates)
    )
    return [
        tuple(int(row[f"c{j}_{i}"] or 0) for j in range(len(source.columns)))
        for i in range(len(days))
    ]


def _days(first: date, last: date) -> list[date]:
    return [first + timedelta(days=i) for i in range((last - first).days + 1)]


def _counted(
    shop_id: int, tallied: tuple[date, date], rated: tuple[date, date] | None
) -> tuple[dict[date, Numbers], dict[date, Numbers]]:
    """(claims, sales, redemptions) of each local day in `tallied` (first, last), and
    (reviews, stars summed) of each in `rated`: coupons, write-offs and reviews in one
    query."""
    days = _days(*tallied)
    ranges = [days, days] + ([_days(*rated)] if rated is not None else [])
    numbers = _per_day(shop_id, ranges)
    tallies = {day: numbers[0][i] + numbers[1][i] for i, day in enumerate(days)}
    ratings = dict(zip(ranges[2], numbers[2], strict=True)) if rated is not None else {}
    return tallies, ratings


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
    unrated = [day for day in rated if day not in cached.ratings]
    counted, recounted = _counted(
        shop_id,
        (missing[0] if missing else today, today),
        (unrated[0] if unrated else today, today) if trend else None,
    )
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


def _waiting(shop_id: int) -> Any:
    return _reviews(shop_id).filter(reply__isnull=True)


# Compiled once (decision 305): the newest reviews awaiting a reply, with their authors as
# others see them, and how many await.
_AWAITING = PreparedRead(
    lambda shop_id: (
        _waiting(shop_id)
        .order_by("-created_at", "-id")
        .values_list(
            "id", "title", "rating", "created_at", "user_id", "user__nick_name", "user__icon"
        )[:AWAITING_REPLY_SHOWN]
    )
)
_AWAITING_COUNT = PreparedRead(
    lambda shop_id: (
        _waiting(shop_id).values("shop_id").annotate(n=Count("pk")).order_by().values_list("n")
    )
)


def awaiting_reply(*, shop_id: int) -> tuple[list[dict[str, Any]], int]:
    """The newest AWAITING_REPLY_SHOWN reviews the shop has not replied to (a reply a
    moderator hid still counts as the shop's answer), each with its author, and how many
    await in all (one more query only when the list is full)."""
    newest = [
        {
            "id": review_id,
            "title": title,
            "rating": rating,
            "created_at": created_at,
            "user": {"id": user_id, "nick_name": nick_name, "icon": icon},
        }
        for review_id, title, rating, created_at, user_id, nick_name, icon in _AWAITING.rows(
            shop_id=shop_id
        )
    ]
    if len(newest) < AWAITING_REPLY_SHOWN:
        return newest, len(newest)
    ((total,),) = _AWAITING_COUNT.rows(shop_id=shop_id)
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
