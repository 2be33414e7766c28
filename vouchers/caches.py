from __future__ import annotations

from functools import cache

from dianping.redis.cache import CacheClient

ACTIVITIES_IDENT = "all"


@cache
def activities_cache() -> CacheClient:
    """The preheated activity list: one logically expiring entry, never expiring physically."""
    return CacheClient("seckill-activities", ttl=60)
