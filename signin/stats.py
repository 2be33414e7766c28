"""UV and PV over a span of local days, from the HyperLogLogs and counters the visits
buffer writes (traffic/visits.py): the whole site, one page kind, or one shop."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

import redis

from toolkit.redis.client import get_redis
from toolkit.redis.cluster import is_cluster
from toolkit.redis.multikey import hyperloglog_counts, hyperloglog_union_count
from traffic import keys, visits

# Queues a caller's own reads on the pipeline that reads the days' views.
Piggyback = Callable[[redis.client.Pipeline], None]


def uv_stats(
    *, end: date, days: int, shop_id: int | None = None, page: str | None = None
) -> dict[str, Any]:
    """Unique visitors over the `days` days ending `end` (PFCOUNT of the days' logs
    reads their union without writing a merged key: a visitor seen on several days
    counts once), page views summed, and both per day: of one shop, else of one page
    kind (traffic.visits.PAGE_KINDS), else of the whole site."""
    return uv_stats_with(end=end, days=days, shop_id=shop_id, page=page)[0]


def pages_stats(*, end: date, days: int) -> list[dict[str, Any]]:
    """`uv_stats` of the whole site, then of each page kind (the admin's traffic page)."""
    return [uv_stats(end=end, days=days, page=page) for page in (None, *visits.PAGE_KINDS)]


def uv_stats_with(
    *,
    end: date,
    days: int,
    shop_id: int | None = None,
    page: str | None = None,
    piggyback: Piggyback | None = None,
) -> tuple[dict[str, Any], list[Any]]:
    """`uv_stats` and the replies to the commands `piggyback` queues, in one round trip
    on one Redis: the days' GETs, each day's PFCOUNT and the window's share a pipeline. On
    a Cluster, whose pipelines refuse PFCOUNT, the counts take their own calls."""
    if shop_id is not None:
        subject = visits.shop_subject(shop_id)
    elif page is not None:
        subject = visits.page_subject(page)
    else:
        subject = visits.SITE
    dates = [end - timedelta(days=i) for i in range(days - 1, -1, -1)]
    day_keys = [visits.local_day(d) for d in dates]
    uv_keys = [keys.visits_uv(subject, day) for day in day_keys]
    client = get_redis()
    pipe = client.pipeline(transaction=False)
    if piggyback is not None:
        piggyback(pipe)
    extra = len(pipe)
    for day in day_keys:
        pipe.get(keys.visits_pv(subject, day))  # one GET each: the days span Cluster slots
    counted_here = not is_cluster(client)
    if counted_here:
        for name in uv_keys:
            pipe.pfcount(name)
        pipe.pfcount(*uv_keys)  # their union
    replies = pipe.execute()
    own = replies[extra:]
    per_day_pv = own[:days]
    if counted_here:
        per_day_uv, total_uv = own[days : 2 * days], own[2 * days]
    else:
        per_day_uv = hyperloglog_counts(uv_keys)
        total_uv = hyperloglog_union_count(uv_keys) if days > 1 else per_day_uv[0]
    pv = [int(v or 0) for v in per_day_pv]
    stats = {
        "shop_id": shop_id,
        "page": page if shop_id is None else None,
        "date_from": dates[0].isoformat(),
        "date_to": end.isoformat(),
        "days": days,
        "uv": total_uv,
        "pv": sum(pv),
        "by_day": [
            {"date": d.isoformat(), "uv": u, "pv": p}
            for d, u, p in zip(dates, per_day_uv, pv, strict=True)
        ],
    }
    return stats, replies[:extra]
