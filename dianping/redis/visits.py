"""Unique visitors (HyperLogLog) and page views (counters) per subject per local day.

Every view is counted twice, for its subject and for the whole site, in one
pipelined round trip. HyperLogLog keeps each day's UV in at most 12 KB with
about 0.81% standard error.
"""

from __future__ import annotations

from datetime import date

from django.utils import timezone

from dianping import clock

from . import keys
from .client import get_redis

SITE = "site"
RETENTION_SECONDS = 400 * 24 * 60 * 60  # a year of history plus a margin for comparisons


def local_day(day: date | None = None) -> str:
    return (day or timezone.localdate(clock.now())).strftime("%Y%m%d")


def record(subject: str, visitor: str) -> None:
    """Count one view of `subject` by `visitor` (a stable id such as "user:42")."""
    day = local_day()
    pipe = get_redis().pipeline(transaction=False)
    for name in (subject, SITE):
        uv, pv = keys.visits_uv(name, day), keys.visits_pv(name, day)
        pipe.pfadd(uv, visitor)
        pipe.incr(pv)
        pipe.expire(uv, RETENTION_SECONDS)
        pipe.expire(pv, RETENTION_SECONDS)
    pipe.execute()
