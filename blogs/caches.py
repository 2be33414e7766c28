"""The blog detail cache (seed 002 §1): read-through, a random TTL so entries made
together do not expire together, evicted after every committed change. Like counts
are not trusted from it: readers overlay them live."""

from __future__ import annotations

from functools import cache

from django.conf import settings

from dianping.redis.cache import CacheClient


@cache
def blog_cache() -> CacheClient:
    return CacheClient(
        "blog",
        ttl=settings.BLOG_CACHE_TTL,
        jitter=settings.BLOG_CACHE_JITTER,
        null_ttl=settings.BLOG_CACHE_NULL_TTL,
    )


def blog_evict(*blog_ids: int) -> None:
    """Drop cached details after a committed change (edit, delete, comment, author)."""
    for blog_id in blog_ids:
        blog_cache().evict(blog_id)


def author_blogs_evict(user_id: int) -> int:
    """Drop the cached details of every blog of an author; returns how many."""
    from .models import Blog

    ids = list(Blog.objects.filter(user_id=user_id).values_list("id", flat=True))
    blog_evict(*ids)
    return len(ids)
