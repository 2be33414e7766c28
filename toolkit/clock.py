"""The one clock the business logic reads, so tests can move time deliberately.

Redis-side TTLs still run on Redis's clock; only decisions made in Python
(rate-limit windows, sign-in days, sale windows) go through here.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, date, datetime

from django.utils import timezone

_source: Callable[[], float] = time.time


def now_seconds() -> float:
    """Seconds since the Unix epoch, as a float."""
    return _source()


def now_ms() -> int:
    """Milliseconds since the Unix epoch."""
    return round(_source() * 1000)


def now() -> datetime:
    """The current time as an aware UTC datetime."""
    return datetime.fromtimestamp(_source(), tz=UTC)


def today() -> date:
    """The local date (TIME_ZONE) now: the day sign-ins, statistics and reports count in."""
    return timezone.localdate(now())


def start_of(day: date) -> datetime:
    """Midnight at the start of a local date, as an aware datetime."""
    return timezone.make_aware(datetime.combine(day, datetime.min.time()))


def set_source(source: Callable[[], float] | None) -> None:
    """Replace the time source (tests only); None restores the system clock."""
    global _source
    _source = source or time.time
