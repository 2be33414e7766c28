"""The blog caches. Details (seed 002 §1): read-through, a random TTL so entries made
together do not expire together, kept in each process's near cache too, evicted after
every committed change; like counts are not trusted from them: readers overlay them
live. The hot list: the ids of the most liked blogs and how many blogs there are,
evicted by every change of either (a like, a new or deleted blog)."""

from __future__ import annotations

from functools import cache

from django.conf import settings

from toolkit.redis.cache import CacheClient


@cache
def blog_cache() -> CacheClient:
    return CacheClient(
        "blog",
        ttl=settings.BLOG_CACHE_TTL,
        jitter=settings.BLOG_CACHE_JITTER,
        null_ttl=settings.BLOG_CACHE_NULL_TTL,
        near_ttl=settings.BLOG_NEAR_CACHE_TTL,
    )


@cache
def hot_cache() -> CacheClient:
    return CacheClient(
        "blog-hot", ttl=settings.BLOG_HOT_CACHE_TTL, near_ttl=settings.BLOG_NEAR_CACHE_TTL
    )


@cache
def like_count_cache() -> CacheClient:
    """Each blog's like count (its likers set's size) with near copies, so that a list's
    live counts cost no round trip: evicted by every like or unlike that changed it."""
    return CacheClient(
        "blog-likes", ttl=settings.BLOG_HOT_CACHE_TTL, near_ttl=settings.BLOG_NEAR_CACHE_TTL
    )


@cache
def reviews_cache() -> CacheClient:
    """Per shop: how many visible notes are about it and the ids of the newest
    REVIEWS_CACHED of them (the shop page's reviews), evicted after every committed
    change of its reviews (blogs.reviews)."""
    return CacheClient(
        "shop-reviews",
        ttl=settings.BLOG_CACHE_TTL,
        jitter=settings.BLOG_CACHE_JITTER,
        null_ttl=settings.BLOG_CACHE_NULL_TTL,
        near_ttl=settings.BLOG_NEAR_CACHE_TTL,
    )


REVIEWS_CACHED = 50
HOT_IDENT = "top"
HOT_CACHED = 50  # the first 5 pages of the hot list come from the cache; later ones query


def hot_evict() -> None:
    """After a committed change of the hot list's order or size."""
    hot_cache().evict(HOT_IDENT)


def blog_evict(*blog_ids: int) -> None:
    """Drop cached details after a committed change (edit, delete, comment, author), in
    one round trip."""
    blog_cache().evict_many(blog_ids)


def author_blogs_evict(user_id: int) -> int:
    """Drop the cached details of every blog of an author; returns how many."""
    from .models import Blog

    ids = list(Blog.objects.filter(user_id=user_id).values_list("id", flat=True))
    blog_evict(*ids)
    return len(ids)


def replied_reviews_evict(shop_id: int) -> int:
    """Drop the cached documents of the reviews a shop replied to (they show its name);
    returns how many."""
    from .models import ReviewReply

    ids = list(ReviewReply.objects.filter(shop_id=shop_id).values_list("review_id", flat=True))
    blog_evict(*ids)
    return len(ids)
