"""UV and PV over a span of local days, from the HyperLogLogs and counters the visits
buffer writes (traffic/visits.py): the whole site, or one shop."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from dianping.redis import keys
from dianping.redis.client import get_redis
from dianping.redis.multikey import hyperloglog_counts, hyperloglog_union_count
from traffic import visits


def uv_stats(*, end: date, days: int, shop_id: int | None = None) -> dict[str, Any]:
    """Unique visitors over the `days` days ending `end` (PFCOUNT of the days' logs
    reads their union without writing a merged key: a visitor seen on several days
    counts once), page views summed, and both per day."""
    subject = visits.SITE if shop_id is None else visits.shop_subject(shop_id)
    dates = [end - timedelta(days=i) for i in range(days - 1, -1, -1)]
    day_keys = [visits.local_day(d) for d in dates]
    uv_keys = [keys.visits_uv(subject, day) for day in day_keys]
    pipe = get_redis().pipeline(transaction=False)
    for day in day_keys:
        pipe.get(keys.visits_pv(subject, day))  # one GET each: the days span Cluster slots
    per_day_pv = pipe.execute()
    per_day_uv = hyperloglog_counts(uv_keys)
    total_uv = hyperloglog_union_count(uv_keys) if days > 1 else per_day_uv[0]
    pv = [int(v or 0) for v in per_day_pv]
    return {
        "shop_id": shop_id,
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
