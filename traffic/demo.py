"""Past page views for `seed_demo`: a subject's visitors and views on a local day, written
to the keys the visits flusher writes (traffic/visits.py) and read by the statistics."""

from __future__ import annotations

from datetime import date, timedelta

from toolkit import clock
from toolkit.redis.client import get_redis

from . import keys
from .visits import RETENTION_SECONDS, SITE, local_day, page_subject


def seed_views(subject: str, days: dict[date, tuple[list[str], int]]) -> int:
    """For each local day, `visitors` (ids as the flusher counts them, "client:…") made
    `views` views of `subject`, counted for the whole site too, as every view is (and a
    shop's for the shop pages, as the flusher counts them); returns
    how many days were written. Idempotent: a day whose visitors are in the subject's
    HyperLogLog already (PFADD changes nothing) is left as it is, so its views are never
    counted twice, and real views of the day add to the demo's. Each key expires as the
    flusher's would: RETENTION_SECONDS after the end of its day."""
    redis = get_redis()
    ordered = sorted(days)
    pipe = redis.pipeline(transaction=False)
    for day in ordered:
        pipe.pfadd(keys.visits_uv(subject, local_day(day)), *days[day][0])
    added = pipe.execute()
    pipe = redis.pipeline(transaction=False)
    written = 0
    kind = page_subject("shop") if subject.startswith("shop:") else None
    for day, new in zip(ordered, added, strict=True):
        if not new:
            continue
        visitors, views = days[day]
        name = local_day(day)
        expires = int(clock.start_of(day + timedelta(days=1)).timestamp()) + RETENTION_SECONDS
        also = [SITE] if kind is None else [SITE, kind]
        for other in also:
            pipe.pfadd(keys.visits_uv(other, name), *visitors)
        for counted in (subject, *also):
            pipe.incrby(keys.visits_pv(counted, name), views)
            pipe.expireat(keys.visits_uv(counted, name), expires)
            pipe.expireat(keys.visits_pv(counted, name), expires)
        written += 1
    pipe.execute()
    return written
