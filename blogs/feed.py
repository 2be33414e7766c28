"""The push feed: a bounded inbox (sorted set) per user, filled when followees publish.

Scores are the blogs' creation times in ms. Reading scrolls by (max_time, offset):
the next page starts at the previous page's lowest score, skipping the items of that
score already shown, so neither new arrivals nor shared timestamps repeat or skip items.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import Q

from dianping import clock
from dianping.redis import keys
from dianping.redis.client import get_redis
from dianping.redis.scripts import lua
from follows.models import Follow

from .models import Blog

_PUSH = lua(__file__, "feed_push.lua")
log = logging.getLogger(__name__)
FEED_PAGE_SIZE = 10


def score_of(blog: Blog) -> int:
    return int(blog.created_at.timestamp() * 1000)


def feed_push_batch(blog_id: int, *, after_follower: int = 0) -> int | None:
    """Push a blog to the next FEED_PUSH_BATCH followers of its author (by id, after
    `after_follower`) in one round trip; returns where the next batch starts, or None."""
    blog = Blog.objects.filter(pk=blog_id).only("id", "user_id", "created_at", "pushed_at").first()
    if blog is None or blog.pushed_at is not None:
        return None  # deleted before its push ran, or another run of its push finished
    followers = list(
        Follow.objects.filter(followed_id=blog.user_id, user_id__gt=after_follower)
        .order_by("user_id")
        .values_list("user_id", flat=True)[: settings.FEED_PUSH_BATCH]
    )
    item = [(score_of(blog), blog.id)]
    # One follower's broken keys (a WRONGTYPE, say) must not fail the others, nor keep
    # the blog unpushed forever. Redis refusing them all (out of memory, say) is Redis's
    # fault: raise, so the blog stays unpushed and the sweep tries again later.
    replies = _PUSH.run_many([_push_call(f, blog.user_id, item) for f in followers])
    errors = {f: r for f, r in zip(followers, replies, strict=True) if isinstance(r, Exception)}
    if errors and len(errors) == len(followers):
        raise next(iter(errors.values()))
    if errors:
        log.error("feed push of blog %s refused for followers: %r", blog_id, errors)
    if len(followers) == settings.FEED_PUSH_BATCH:
        return followers[-1]
    Blog.objects.filter(pk=blog_id, pushed_at__isnull=True).update(pushed_at=clock.now())
    return None


def feed_claim_unpushed(limit: int) -> list[int]:
    """Blogs whose push should have finished by now and has not (oldest first), not
    retried within the last interval either; they are marked retried now. Their task was
    lost on the way to the broker, or gave up. Pushing again is harmless."""
    now = clock.now()
    overdue = now - timedelta(seconds=settings.FEED_PUSH_RETRY_AFTER)
    unpushed = Blog.objects.filter(pushed_at__isnull=True, created_at__lte=overdue).filter(
        Q(push_retried_at__isnull=True) | Q(push_retried_at__lte=overdue)
    )
    ids = list(unpushed.order_by("created_at").values_list("id", flat=True)[:limit])
    Blog.objects.filter(pk__in=ids).update(push_retried_at=now)
    return ids


def feed_backfill(*, user_id: int, author_id: int) -> None:
    """A new follow brings in the author's recent blogs."""
    recent = Blog.objects.filter(user_id=author_id).order_by("-created_at", "-id")[
        : settings.FEED_BACKFILL
    ]
    items = [(score_of(blog), blog.id) for blog in recent]
    if items:
        _PUSH(*_push_call(user_id, author_id, items))


def feed_forget_author(*, user_id: int, author_id: int) -> None:
    """An unfollow takes the author's items out of the inbox (only the author's newest
    FEED_INBOX_MAX blogs can be there: the inbox keeps that many newest items)."""
    ids = list(
        Blog.objects.filter(user_id=author_id)
        .order_by("-created_at", "-id")
        .values_list("id", flat=True)[: settings.FEED_INBOX_MAX]
    )
    if ids:
        get_redis().zrem(keys.feed_inbox(user_id), *ids)


def _push_call(
    follower: int, author: int, items: list[tuple[int, int]]
) -> tuple[list[str], list[int]]:
    """feed_push.lua's keys and args for one follower's inbox."""
    args: list[int] = [author, settings.FEED_INBOX_MAX]
    for score, blog_id in items:
        args += [score, blog_id]
    return [keys.following(follower), keys.feed_inbox(follower)], args


def feed_page(*, user_id: int, max_time: int | None, offset: int) -> dict[str, Any]:
    """One page of the inbox, newest first, at or below `max_time` (ms), skipping the
    first `offset` items scored exactly `max_time` (shown on the previous page).

    Items whose blog was deleted are skipped; when a whole page of them is skipped the
    read goes on, so an empty page always means the inbox is exhausted.
    """
    while True:
        rows = get_redis().zrevrangebyscore(
            keys.feed_inbox(user_id),
            "+inf" if max_time is None else max_time,
            0,
            start=offset,
            num=FEED_PAGE_SIZE,
            withscores=True,
        )
        if not rows:
            return {"results": [], "min_time": max_time or 0, "offset": 0}
        scores = [int(score) for _, score in rows]
        min_time = scores[-1]
        next_offset = scores.count(min_time) + (offset if min_time == max_time else 0)
        ids = [int(member) for member, _ in rows]
        # Deleted blogs stay in the inbox (removing them would shift the offsets a client
        # is scrolling by) and age out as it is trimmed.
        blogs = Blog.objects.select_related("user").in_bulk(ids)
        results = [blogs[blog_id] for blog_id in ids if blog_id in blogs]
        if results:
            return {"results": results, "min_time": min_time, "offset": next_offset}
        max_time, offset = min_time, next_offset
