"""UV and PV over a span of local days, from the HyperLogLogs and counters the visits
buffer writes (dianping/redis/visits.py): the whole site, or one shop."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from dianping.redis import keys, visits
from dianping.redis.client import get_redis


def uv_stats(*, end: date, days: int, shop_id: int | None = None) -> dict[str, Any]:
    """Unique visitors over the `days` days ending `end` (PFCOUNT of the days' logs
    reads their union without writing a merged key: a visitor seen on several days
    counts once), page views summed, and both per day."""
    subject = visits.SITE if shop_id is None else visits.shop_subject(shop_id)
    dates = [end - timedelta(days=i) for i in range(days - 1, -1, -1)]
    day_keys = [visits.local_day(d) for d in dates]
    uv_keys = [keys.visits_uv(subject, day) for day in day_keys]
    pipe = get_redis().pipeline(transaction=False)
    pipe.pfcount(*uv_keys)
    for key in uv_keys:
        pipe.pfcount(key)
    pipe.mget([keys.visits_pv(subject, day) for day in day_keys])
    replies = pipe.execute()
    total_uv, per_day_uv, per_day_pv = replies[0], replies[1:-1], replies[-1]
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
