"""Blog background work: thin wrappers around pages and feed."""

from __future__ import annotations

import redis
from celery import shared_task
from django.conf import settings

from toolkit.redis.lock import LockTimeout

from . import caches, feed, pages, reviews


@shared_task(ignore_result=True, autoretry_for=(LockTimeout,), retry_backoff=1, max_retries=5)
def rebuild_user_pages(user_id: int) -> int:
    return pages.user_pages_rebuild(user_id)


@shared_task(
    ignore_result=True,
    autoretry_for=(redis.ConnectionError, redis.TimeoutError),
    retry_backoff=1,
    max_retries=8,
)
def push_to_followers(blog_id: int, after_follower: int = 0) -> None:
    """One batch of followers per run; a big audience becomes a chain of runs. Retried
    when Redis is unreachable (pushes are idempotent)."""
    next_after = feed.feed_push_batch(blog_id, after_follower=after_follower)
    if next_after is not None:
        push_to_followers.delay(blog_id, next_after)


@shared_task(ignore_result=True)
def push_unpushed_blogs() -> int:
    """Beat, every minute: enqueue again the pushes that never finished."""
    blog_ids = feed.feed_claim_unpushed(settings.FEED_PUSH_SWEEP_BATCH)
    for blog_id in blog_ids:
        push_to_followers.delay(blog_id)
    return len(blog_ids)


@shared_task(ignore_result=True, autoretry_for=(redis.RedisError,), retry_backoff=1, max_retries=5)
def evict_author_blogs(user_id: int) -> int:
    """Drop the cached details of an author's blogs (their name or picture changed)."""
    return caches.author_blogs_evict(user_id)


@shared_task(ignore_result=True, autoretry_for=(redis.RedisError,), retry_backoff=1, max_retries=5)
def evict_replied_reviews(shop_id: int) -> int:
    """Drop the cached documents of the reviews the shop replied to (its name changed)."""
    return caches.replied_reviews_evict(shop_id)


@shared_task(ignore_result=True)
def recount_reviews(user_id: int, shop_id: int) -> None:
    """A note about the shop went another way than through the services (a cascade, a
    bulk delete in admin): the author's rating of it and its statistics are counted
    again (idempotent)."""
    reviews.review_changed_elsewhere(user_id=user_id, shop_id=shop_id)
