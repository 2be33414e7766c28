"""Daily sign-in: one bit per day in a bitmap per user per month (days in TIME_ZONE).

The days signed this month are the month bitmap's BITCOUNT; the all-time total is a
counter the sign script increments with each new bit (decision 494), read beside them.

The streak reads whole months with one BITFIELD GET each (a month fits in 31 bits), a
batch of months per round trip, and stops at the first gap or after
SIGN_STREAK_MAX_MONTHS months: bounded work however long the streak.
"""

from __future__ import annotations

import calendar
from datetime import date, timedelta
from typing import Any, NamedTuple

from django.conf import settings
from django.utils import timezone

from toolkit import clock
from toolkit.redis.client import get_redis
from toolkit.redis.scripts import lua

from . import keys
from .buckets import BUCKETS, bucket_of

_SIGN = lua(__file__, "sign.lua")
_RECOUNT = lua(__file__, "recount.lua")
_MONTHS_PER_ROUND_TRIP = 6


def today() -> date:
    """Today in TIME_ZONE: the day a sign-in counts for."""
    return timezone.localdate(clock.now())


def sign(*, user_id: int, day: date | None = None) -> dict[str, Any]:
    """Sign `day` (default today); idempotent. Returns the day, whether this call signed
    it, the streak, the days signed in `day`'s month and the all-time total (the last
    two from the sign script itself)."""
    day = day or today()
    bucket = bucket_of(user_id)
    script_keys = [
        keys.sign_month(bucket, user_id, _month(day)),
        keys.sign_daily_counts(bucket),
        keys.sign_total(bucket, user_id),
    ]
    new, month_count, total, had_total = _SIGN(script_keys, [day.day - 1, day.strftime("%Y%m%d")])
    if not had_total:  # kept only since decision 494, or lost: the bitmaps say (once)
        total = recount_total(user_id=user_id, upto=day)
    return {
        "date": day.isoformat(),
        "signed": True,
        "new": bool(new),
        "streak": streak(user_id=user_id, today_=day).days,
        "month_count": int(month_count),
        "total": int(total),
    }


class Streak(NamedTuple):
    days: int
    signed_today: bool
    month_count: int  # days signed in today's month
    total: int  # days signed ever


def streak(*, user_id: int, today_: date | None = None) -> Streak:
    """Consecutive signed days ending today, or ending yesterday while today is unsigned
    (whether today is signed comes with it: the same read shows it)."""
    day = today_ or today()
    client = get_redis()
    bucket = bucket_of(user_id)
    months = _months_back(day)
    counted = 0
    signed_today: bool | None = None
    month_count = total = 0
    while months:
        batch, months = months[:_MONTHS_PER_ROUND_TRIP], months[_MONTHS_PER_ROUND_TRIP:]
        pipe = client.pipeline(transaction=False)
        first = signed_today is None
        if first:  # the totals ride the first round trip
            pipe.bitcount(keys.sign_month(bucket, user_id, _month(day)))
            pipe.get(keys.sign_total(bucket, user_id))
        for month_start, days in batch:
            key = keys.sign_month(bucket, user_id, _month(month_start))
            pipe.bitfield(key).get(f"u{days}", 0).execute()
        replies = pipe.execute()
        if first:
            month_count = int(replies[0])
            total = (
                int(replies[1])
                if replies[1] is not None
                else recount_total(user_id=user_id, upto=day)
            )
            replies = replies[2:]
        for (_, days), (bits,) in zip(batch, replies, strict=True):
            if signed_today is None:  # this month, read up to today: today is the low bit
                signed_today = bool(bits & 1)
                if not signed_today:  # the streak may still end yesterday
                    bits, days = bits >> 1, days - 1
            run = _trailing_ones(bits, days)
            counted += run
            if run < days:
                return Streak(counted, signed_today, month_count, total)
    return Streak(counted, bool(signed_today), month_count, total)


def month_days(*, user_id: int, month: date) -> list[int]:
    """The signed days (1-based) of the month containing `month`."""
    days = calendar.monthrange(month.year, month.month)[1]
    key = keys.sign_month(bucket_of(user_id), user_id, _month(month))
    (bits,) = get_redis().bitfield(key).get(f"u{days}", 0).execute()
    return [d for d in range(1, days + 1) if bits >> (days - d) & 1]


def recount_total(*, user_id: int, upto: date | None = None) -> int:
    """Set a user's all-time total to the bits of their month bitmaps, in one script (the
    bitmaps are the record, never expired): the first read or sign-in of a user whose
    total is missing (kept since decision 494, or lost), and `recount_signins`. The
    months are every one from SIGN_FIRST_MONTH to the month after `upto` (today), so no
    SCAN is needed and a sign-in landing in a new month meanwhile is never left out
    (`upto`: a later day than today, as tests sign)."""
    bucket = bucket_of(user_id)
    months = [
        keys.sign_month(bucket, user_id, _month(month))
        for month in _months_between(
            settings.SIGN_FIRST_MONTH, _next_month(max(upto or today(), today()))
        )
    ]
    return int(_RECOUNT([keys.sign_total(bucket, user_id), *months], []))


def daily_counts(*, end: date, days: int) -> list[dict[str, Any]]:
    """Signed users per day for the `days` days ending `end`, newest first (counters
    kept as sign-ins happen: one HMGET per bucket, in one round trip, no scan)."""
    dates = [end - timedelta(days=i) for i in range(days)]
    fields = [d.strftime("%Y%m%d") for d in dates]
    pipe = get_redis().pipeline(transaction=False)
    for bucket in range(BUCKETS):
        pipe.hmget(keys.sign_daily_counts(bucket), fields)
    totals = [sum(int(c or 0) for c in day) for day in zip(*pipe.execute(), strict=True)]
    return [{"date": d.isoformat(), "users": n} for d, n in zip(dates, totals, strict=True)]


def _months_back(day: date) -> list[tuple[date, int]]:
    """(month start, days to read) from `day`'s month (read up to `day`) backwards."""
    months = [(day.replace(day=1), day.day)]
    cursor = day.replace(day=1)
    for _ in range(settings.SIGN_STREAK_MAX_MONTHS - 1):
        cursor = (cursor - timedelta(days=1)).replace(day=1)
        months.append((cursor, calendar.monthrange(cursor.year, cursor.month)[1]))
    return months


def _trailing_ones(bits: int, width: int) -> int:
    run = 0
    while run < width and bits & 1:
        run += 1
        bits >>= 1
    return run


def _month(day: date) -> str:
    return day.strftime("%Y%m")


def _next_month(day: date) -> date:
    return (day.replace(day=1) + timedelta(days=32)).replace(day=1)


def _months_between(first: date, last: date) -> list[date]:
    """The first day of every month from `first`'s to `last`'s, both included."""
    months, cursor = [], first.replace(day=1)
    while cursor <= last:
        months.append(cursor)
        cursor = _next_month(cursor)
    return months
