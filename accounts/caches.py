"""The public-user cache: a user as others see them (id, nick name, picture), for pages
that show an author, kept in each process's near cache too; evicted when the profile
changes and when the account is deleted or disabled (accounts.signals)."""

from __future__ import annotations

from functools import cache

from django.conf import settings

from toolkit.redis.cache import CacheClient


@cache
def user_cache() -> CacheClient:
    return CacheClient(
        "user",
        ttl=settings.USER_CACHE_TTL,
        null_ttl=60,
        near_ttl=settings.USER_NEAR_CACHE_TTL,
    )


def user_evict(user_id: int) -> None:
    user_cache().evict(user_id)
