"""Unique visitors (HyperLogLog) and page views (counters) per subject per local day.

Views are buffered in memory and written by a background thread every
`VISITS_FLUSH_INTERVAL` seconds as one pipeline (PFADD of many visitors at
once, INCRBY of the count), so recording a view costs the request a list
append, not a Redis round trip. The price: a process killed with SIGKILL
loses at most one interval of statistics; a normal exit flushes. A batch whose
write fails is dropped and logged, not retried: part of it may already have been
applied, and counting views twice would be worse than missing a few. Every view
counts for its subject, its page kind and the whole site. HyperLogLog keeps each day's UV
in at most 12 KB with about 0.81% standard error.

An anonymous visitor is whatever id its client sends, so a script could add thousands a
minute. At most ANON_VISITORS_PER_ADDRESS anonymous ids count per client address per
day, decided at flush time (one script call per address, pipelined); the ids beyond count
as the address, one visitor. Signed-in visitors always count as themselves.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections import defaultdict
from dataclasses import dataclass
from datetime import date, timedelta

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext_lazy

from toolkit import clock, runtime
from toolkit.redis.client import get_redis
from toolkit.redis.scripts import lua

from . import keys

log = logging.getLogger(__name__)

SITE = "site"
# The pages whose API reads count as views of the site (traffic.visitors.count_page).
PAGE_KINDS = ("home", "shop", "note", "search", "feed")
# What operators read for each kind (the admin's statistics page); None: the whole site.
PAGE_LABELS = {
    None: gettext_lazy("Whole site"),
    "home": gettext_lazy("Home page"),
    "shop": gettext_lazy("Shop pages"),
    "note": gettext_lazy("Notes"),
    "search": gettext_lazy("Search"),
    "feed": gettext_lazy("Feed"),
}
ANON_IDS_TTL = 2 * 24 * 60 * 60  # a day's set, kept past its day's end in every zone
_ADMIT = lua(__file__, "visitors_admit.lua")


@dataclass(frozen=True, slots=True)
class Visitor:
    id: str  # "user:7", "client:<id>", "anon:<hash>"
    address: str | None = None  # a hash of the client's address, for anonymous visitors


RETENTION_SECONDS = 400 * 24 * 60 * 60  # a year of history plus a margin for comparisons
RANKING_RETENTION_SECONDS = 3 * 24 * 60 * 60  # "most viewed" reads two days' rankings
FLUSH_EARLY_AT = 10_000  # pending views that wake the flusher before its interval

_lock = threading.Lock()
_writing = threading.Lock()  # held by the one flush writing at a time
# (day, subject or None, page kind or None) -> visitors, each with the address that
# bounds it (None: signed in)
Pending = dict[tuple[str, str | None, str | None], list[Visitor]]
_pending: Pending = defaultdict(list)
_pending_count = 0
_wake = threading.Event()
_expiry_set: set[tuple[str, str]] = set()  # (day, subject) keys whose TTL this process set
_expiry_hour = -1
_flusher_pid: int | None = None


_day_memo: tuple[int, str] = (-1, "")


def local_day(day: date | None = None) -> str:
    """YYYYMMDD of `day`, or of today in TIME_ZONE (memoised per minute: local midnights
    fall on whole minutes in every real time zone, so a minute never spans two days)."""
    global _day_memo
    if day is not None:
        return day.strftime("%Y%m%d")
    minute = int(clock.now_seconds() // 60)
    if _day_memo[0] != minute:
        _day_memo = (minute, timezone.localdate(clock.now()).strftime("%Y%m%d"))
    return _day_memo[1]


def shop_subject(shop_id: int) -> str:
    """The subject a shop's views are counted under."""
    return f"shop:{shop_id}"


def page_subject(kind: str) -> str:
    """The subject the views of one page kind (PAGE_KINDS) are counted under."""
    return f"page:{kind}"


def reset() -> None:
    """Flush what is buffered and forget which keys got their TTL (tests flush Redis
    between cases, so the keys are recreated and need it again)."""
    flush()
    _expiry_set.clear()


def record(subject: str | None, visitor: Visitor, *, page: str | None = None) -> None:
    """Count one view of `subject` (e.g. "shop:42"; None for a page of no subject of its
    own) by `visitor`, a view of the page kind `page` (one of PAGE_KINDS) when given, and
    of the whole site."""
    global _pending_count
    _ensure_flusher()
    day = local_day()
    with _lock:
        _pending[(day, subject, page)].append(visitor)
        _pending_count += 1
        if _pending_count >= FLUSH_EARLY_AT:
            _wake.set()


def flush() -> int:
    """Write every buffered view to Redis now; returns how many views were written.

    Flushes run one at a time, so when this returns, every view recorded before the
    call is in Redis, including any batch the flusher thread had in flight (an exit
    or a test reading the counts right after must not race that batch).
    """
    with _writing:
        return _flush_pending()


def _flush_pending() -> int:
    global _pending, _pending_count
    with _lock:
        batch, count = _pending, _pending_count
        _pending, _pending_count = defaultdict(list), 0
    if not batch:
        return 0
    _forget_expiries_hourly()
    try:
        counted = _counted_as(batch)
        site: dict[str, list[str]] = defaultdict(list)
        pages: dict[tuple[str, str], list[str]] = defaultdict(list)
        pipe = get_redis().pipeline(transaction=False)
        for (day, subject, page), visitors in batch.items():
            ids = [counted.get((day, v), v.id) for v in visitors]
            if subject is not None:
                _queue(pipe, subject, day, ids)
            if page is not None:
                pages[(day, page_subject(page))] += ids
            site[day] += ids
        for (day, subject), page_ids in pages.items():
            _queue(pipe, subject, day, page_ids)
        for day, site_ids in site.items():
            _queue(pipe, SITE, day, site_ids)
        pipe.execute()
    except Exception:
        log.exception("dropped %d page views: writing them to Redis failed", count)
        raise
    return count


def _counted_as(batch: Pending) -> dict[tuple[str, Visitor], str]:
    """The id each anonymous visitor of the batch counts as: its own, or its address's
    once the address has ANON_VISITORS_PER_ADDRESS others that day."""
    groups: dict[tuple[str, str], dict[Visitor, None]] = defaultdict(dict)  # ordered sets
    for (day, _, _), visitors in batch.items():
        for visitor in visitors:
            if visitor.address is not None:
                groups[(day, visitor.address)][visitor] = None
    cap = settings.ANON_VISITORS_PER_ADDRESS
    calls = [
        ([keys.visitor_ids(day, address)], [cap, ANON_IDS_TTL, *(v.id for v in group)])
        for (day, address), group in groups.items()
    ]
    counted = {}
    for ((day, address), group), verdicts in zip(
        groups.items(), _ADMIT.run_many(calls), strict=True
    ):
        if isinstance(verdicts, Exception):
            raise verdicts
        for visitor, own in zip(group, verdicts, strict=True):
            counted[(day, visitor)] = visitor.id if own else f"address:{address}"
    return counted


def _queue(pipe, subject: str, day: str, visitors: list[str]) -> None:
    uv, pv = keys.visits_uv(subject, day), keys.visits_pv(subject, day)
    pipe.pfadd(uv, *set(visitors))
    pipe.incrby(pv, len(visitors))
    kind, _, member = subject.partition(":")
    if kind == "page":  # "page:home": a kind of page, not an object to rank
        member = ""
    if member:  # "shop:42": also ranked among the day's shops, for `most_viewed`
        pipe.zincrby(keys.visits_ranking(kind, day), len(visitors), member)
    if (day, subject) not in _expiry_set:  # once per key per process per hour is enough
        pipe.expire(uv, RETENTION_SECONDS)
        pipe.expire(pv, RETENTION_SECONDS)
        if member:
            pipe.expire(keys.visits_ranking(kind, day), RANKING_RETENTION_SECONDS)
        _expiry_set.add((day, subject))


def most_viewed(kind: str, *, limit: int) -> list[int]:
    """Ids of the `limit` subjects of `kind` with the most page views in the last day:
    today's so far plus yesterday's (two days' rankings, each read to twice `limit`:
    enough for the sum's top unless the two days disagree wildly)."""
    today = timezone.localdate(clock.now())
    days = [local_day(today), local_day(today - timedelta(days=1))]
    pipe = get_redis().pipeline(transaction=False)
    for day in days:
        pipe.zrevrange(keys.visits_ranking(kind, day), 0, 2 * limit - 1, withscores=True)
    views: dict[int, float] = defaultdict(float)
    for ranking in pipe.execute():
        for member, score in ranking:
            views[int(member)] += score
    return sorted(views, key=lambda i: (-views[i], i))[:limit]


def _forget_expiries_hourly() -> None:
    # Re-send each key's EXPIRE every hour, so keys recreated after a Redis flush or
    # restart get their TTL back, and the set stays small.
    global _expiry_hour
    hour = int(clock.now_seconds() // 3600)
    if hour != _expiry_hour:
        _expiry_set.clear()
        _expiry_hour = hour


def _ensure_flusher() -> None:
    # One flusher thread per process, started lazily so forked server workers get their own.
    global _flusher_pid
    if _flusher_pid == os.getpid():
        return
    with _lock:
        if _flusher_pid == os.getpid():
            return
        _flusher_pid = os.getpid()
    threading.Thread(target=_flush_forever, name="visits-flusher", daemon=True).start()


def _flush_forever() -> None:
    while True:
        _wake.wait(settings.VISITS_FLUSH_INTERVAL)
        _wake.clear()
        _flush_quietly()


def _flush_quietly() -> None:
    with contextlib.suppress(Exception):  # flush() logged it; the flusher keeps running
        flush()


def _reset_after_fork() -> None:
    # A forked child starts with an empty buffer (the parent flushes its own views),
    # a fresh lock (one held at fork time would never be released) and no flusher.
    global _pending, _pending_count, _lock, _writing, _flusher_pid
    _pending, _pending_count = defaultdict(list), 0
    _lock, _writing, _flusher_pid = threading.Lock(), threading.Lock(), None


runtime.register(
    runtime.Part(
        "visits",
        reset=reset,
        stop=_flush_quietly,
        after_fork=_reset_after_fork,
        start=_ensure_flusher,
    )
)
