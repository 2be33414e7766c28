"""What a shop's dashboard counts of its closed local days, kept in Redis: each day's
claims, sales and redemptions (`keys.dashboard_days`), and how many reviews were written
that day with their stars summed (`keys.dashboard_ratings`, what the weekly rating trend
adds up). Today's numbers are never kept: they are counted live.

A closed day changes only through writes that announce it (vouchers' `records_changed`:
a coupon or write-off whose transaction commits after midnight, a late drain of a sale's
orders, a refund reversing an older write-off), and the ratings through any change of
the shop's reviews (blogs' `shop_reviews_changed`). Each evicts what it changed after its
commit, the shop's version bumped first, so a reader that loaded before the eviction
cannot store what it loaded (decisions 400-401)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, cast

import redis
from django.conf import settings
from django.utils import timezone

from toolkit import clock
from toolkit.redis.client import get_redis
from toolkit.redis.scripts import lua

from . import keys

# A write stamped this close before midnight evicts its day as if it had closed: another
# process's clock, a little ahead, may have closed and cached it already.
CLOSING_MARGIN = timedelta(minutes=1)
_STORE = lua(__file__, "dashboard_store.lua")
_VERSION_TTL = 24 * 60 * 60  # far longer than any load

Numbers = tuple[int, ...]  # one day's: (claims, sales, redemptions) or (reviews, stars)


@dataclass(frozen=True, slots=True)
class Cached:
    version: bytes  # read with the entries, before anything missing is loaded
    days: dict[date, Numbers]  # the asked days' tallies that were kept
    ratings: dict[date, Numbers]  # the asked days' ratings that were kept


def queue_read(
    pipe: redis.client.Pipeline, shop_id: int, days: list[date], rating_days: list[date]
) -> None:
    """Queue the reads `parse` takes: the version first, then the days' fields of each
    hash (one slot: the shop's keys share a tag)."""
    pipe.get(keys.dashboard_version(shop_id))
    if days:
        pipe.hmget(keys.dashboard_days(shop_id), [day.isoformat() for day in days])
    if rating_days:
        pipe.hmget(keys.dashboard_ratings(shop_id), [day.isoformat() for day in rating_days])


def parse(replies: list[Any], days: list[date], rating_days: list[date]) -> Cached:
    """The replies to what `queue_read` queued, in its order."""
    version = cast("bytes | None", replies[0]) or b"0"
    rest = iter(replies[1:])
    found = _found(days, next(rest)) if days else {}
    rated = _found(rating_days, next(rest)) if rating_days else {}
    return Cached(version, found, rated)


def _found(days: list[date], values: list[bytes | None]) -> dict[date, Numbers]:
    return {
        day: tuple(int(part) for part in raw.split(b","))
        for day, raw in zip(days, values, strict=True)
        if raw
    }


def store(
    shop_id: int, version: bytes, *, days: dict[date, Numbers], ratings: dict[date, Numbers]
) -> bool:
    """Keep what was loaded, unless an eviction moved the shop's version from `version`
    meanwhile (the next read loads it again). One round trip; whether it stored."""
    if not days and not ratings:
        return False
    fields = [_fields(days), _fields(ratings)]
    return bool(
        _STORE(
            [
                keys.dashboard_version(shop_id),
                keys.dashboard_days(shop_id),
                keys.dashboard_ratings(shop_id),
            ],
            [version, settings.DASHBOARD_CACHE_TTL * 1000, len(days), *fields[0], *fields[1]],
        )
    )


def _fields(numbers: dict[date, Numbers]) -> list[str]:
    pairs: list[str] = []
    for day, values in numbers.items():
        pairs += [day.isoformat(), ",".join(map(str, values))]
    return pairs


def evict(shop_id: int, *, days: Iterable[date] = (), ratings: bool = False) -> None:
    """Drop the shop's kept `days` (and all its ratings), the version bumped first, in
    one MULTI: a store that read the old version is refused, one that stored already is
    undone."""
    fields = sorted({day.isoformat() for day in days})
    if not fields and not ratings:
        return
    version = keys.dashboard_version(shop_id)
    pipe = get_redis().pipeline(transaction=True)  # one slot: the tag is the shop's
    pipe.incr(version)
    pipe.expire(version, _VERSION_TTL)
    if fields:
        pipe.hdel(keys.dashboard_days(shop_id), *fields)
    if ratings:
        pipe.delete(keys.dashboard_ratings(shop_id))
    pipe.execute()


def days_changed(shop_id: int, days: Iterable[date]) -> None:
    """After the commit of a write counted on `days`: those closed (or closing within
    CLOSING_MARGIN) go. Today's are never kept, so a write of today's, the common case,
    costs no round trip."""
    horizon = timezone.localdate(clock.now() + CLOSING_MARGIN)
    closed = [day for day in days if day < horizon]
    if closed:
        evict(shop_id, days=closed)


def ratings_changed(shop_id: int) -> None:
    """After the commit of any change to the shop's reviews: a note's create, edit (its
    stars, or the shop it is about), delete, hide or restore. All its days' ratings go,
    as the signal does not say which day's note changed."""
    evict(shop_id, ratings=True)
