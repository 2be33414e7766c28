"""The push-pull feed (seed 000 §3): a bounded inbox (sorted set) per user, filled when
followees publish, except for authors with very many followers, whose blogs are pulled
from the database at read time and merged in.

A pulled author's blogs are still pushed to their active fans: the followers who read
their feed lately, kept per author by the feed read itself (decision 480). Such a blog
can be both in the inbox and pulled; the merge takes it once.

Scores are the blogs' creation times in ms, and items of one score are ordered by their
id as text, descending (Redis's own order for equal scores), in both sources. Reading
scrolls by (max_time, offset): the next page starts at the previous page's lowest score,
skipping the items of that score already shown, so neither new arrivals nor shared
timestamps repeat or skip items.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any

import redis
from django.conf import settings
from django.db.models import Q

from accounts.models import UserInfo
from follows import keys as follows_keys
from follows.models import Follow
from toolkit import clock
from toolkit.api import saved
from toolkit.guesses import Guesses
from toolkit.redis.client import get_redis
from toolkit.redis.multikey import intersection
from toolkit.redis.scripts import lua

from . import helpful, keys, likes
from .models import Blog
from .selectors import blog_documents

_PUSH = lua(__file__, "feed_push.lua")
log = logging.getLogger(__name__)
FEED_PAGE_SIZE = 10


def score_of(blog: Blog) -> int:
    return int(blog.created_at.timestamp() * 1000)


def _time_of(score: int) -> datetime:
    """The datetime a feed score (milliseconds) stands for, computed in integers so no
    float rounding moves it to a neighbouring millisecond."""
    return datetime.fromtimestamp(score // 1000, tz=UTC) + timedelta(milliseconds=score % 1000)


def is_pulled_author(author_id: int) -> bool:
    """Whether a blog published now by this author is pulled rather than pushed."""
    fans = UserInfo.objects.filter(user_id=author_id).values_list("fans", flat=True).first()
    return (fans or 0) > settings.FEED_PUSH_MAX_FOLLOWERS


def mark_pull_author(author_id: int) -> None:
    """Readers pull this author from now on (for as long as any of their blogs may be)."""
    get_redis().sadd(keys.feed_pull_authors(), author_id)


def feed_push_batch(blog_id: int, *, after_follower: int = 0) -> int | None:
    """Push a blog to the next FEED_PUSH_BATCH followers of its author (by id, after
    `after_follower`) in one round trip; returns where the next batch starts, or None."""
    blog = (
        Blog.objects.filter(pk=blog_id)
        .only("id", "user_id", "created_at", "pushed_at", "pulled")
        .first()
    )
    if blog is None or blog.pushed_at is not None:
        return None  # deleted before its push ran, or another run of its push finished
    if blog.pulled:  # the others pull it
        followers = active_fans(blog.user_id, after_follower=after_follower)
    else:
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


def active_fans(author_id: int, *, after_follower: int = 0) -> list[int]:
    """The next FEED_PUSH_BATCH of the author's fans active within FEED_ACTIVE_DAYS (by
    id, after `after_follower`); the ones inactive longer are dropped from the set."""
    cutoff = _ms(clock.now()) - settings.FEED_ACTIVE_DAYS * 86_400_000
    pipe = get_redis().pipeline(transaction=False)
    pipe.zremrangebyscore(keys.feed_active_fans(author_id), "-inf", f"({cutoff}")
    pipe.zrangebyscore(keys.feed_active_fans(author_id), cutoff, "+inf")
    _, members = pipe.execute()
    fans = sorted(fan for fan in map(int, members) if fan > after_follower)
    return fans[: settings.FEED_PUSH_BATCH]


def mark_active(*, user_id: int, authors: list[int]) -> None:
    """The reader read their feed now: they are an active fan of these pulled authors.
    One pipeline, a ZADD and a trim to FEED_ACTIVE_FANS_MAX (newest kept) per author."""
    now = _ms(clock.now())
    pipe = get_redis().pipeline(transaction=False)
    for author in authors:
        pipe.zadd(keys.feed_active_fans(author), {str(user_id): now})
        pipe.zremrangebyrank(keys.feed_active_fans(author), 0, -(settings.FEED_ACTIVE_FANS_MAX + 1))
    pipe.execute()


def _ms(at: datetime) -> int:
    return int(at.timestamp() * 1000)


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
    recent = Blog.objects.filter(user_id=author_id, pulled=False).order_by("-created_at", "-id")[
        : settings.FEED_BACKFILL
    ]  # pulled blogs reach the follower by being pulled
    items = [(score_of(blog), blog.id) for blog in recent]
    if items:
        feed_push_inbox(user_id=user_id, author_id=author_id, items=items)


def feed_push_inbox(*, user_id: int, author_id: int, items: list[tuple[int, int]]) -> None:
    """Put (score, blog id) items of an author into one follower's inbox. The script
    checks the follow itself, so a push that raced an unfollow adds nothing."""
    _PUSH(*_push_call(user_id, author_id, items))


def feed_forget_author(*, user_id: int, author_id: int) -> None:
    """An unfollow takes the author's items out of the inbox (only the author's newest
    FEED_INBOX_MAX blogs can be there: the inbox keeps that many newest items), pulled
    ones included: they were pushed while the reader was an active fan."""
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
    return [follows_keys.following(follower), keys.feed_inbox(follower)], args


# (reader, max_time, offset) -> the blogs this process last served on that page, whose
# is_liked states the next read of the page asks for on the token's round trip: a page
# rarely changes between two reads of it, and a guess the inbox disproves only costs
# the round trip it tried to save.
_served: Guesses[list[int]] = Guesses(20_000)


def queue_first_reads(pipe: Any, *, user_id: int, max_time: int | None, offset: int) -> list[int]:
    """Queue the first page's reads on the caller's pipeline, so they ride the token's
    round trip instead of costing their own. They are: the inbox's items; whether any
    author is pulled at all (almost never, and then no set intersection is needed);
    whether the reader is due to be marked an active fan again (SET NX of the throttle);
    and the reader's likes, helpful votes and saves of the blogs this page showed last time.
    Returns those blogs' ids; `feed_page` takes them with the replies."""
    _queue_inbox(pipe, user_id, max_time, offset + FEED_PAGE_SIZE)
    pipe.scard(keys.feed_pull_authors())
    pipe.set(keys.feed_active_mark(user_id), 1, nx=True, ex=settings.FEED_ACTIVE_MARK_EVERY)
    guessed = _served.get((user_id, max_time, offset)) or []
    for blog_id in guessed:
        pipe.zscore(keys.blog_likes(blog_id), user_id)
    helpful.queue_voted(pipe, guessed, user_id)  # and their helpful votes (decision 377)
    saved.queue_saved(pipe, user_id, saved.BLOG, guessed)
    return guessed


def feed_page(
    *,
    user_id: int,
    max_time: int | None,
    offset: int,
    first_reads: list[Any] | None = None,
    guessed: list[int] | None = None,
) -> dict[str, Any]:
    """One page of the feed, newest first: the inbox merged with the blogs of pulled
    authors the reader follows, each as its cached document with live likes and `saved`.

    The page starts at `max_time` (ms) and skips the first `offset` items scored exactly
    `max_time`, which the previous page showed, so scrolling neither skips nor repeats.
    `first_reads` and `guessed` are `queue_first_reads`' replies and return.

    Items whose blog was deleted are skipped; when a whole page of them is skipped the
    read goes on, so an empty page always means the feed is exhausted.
    """
    page_key = (user_id, max_time, offset)
    inbox, any_pulled, mark_due, *state_replies = (
        first_reads if first_reads else (None, True, False)
    )
    guessed = guessed or []
    asked = len(guessed)
    likes_replies, rest = state_replies[:asked], state_replies[asked:]
    known_likes = {
        blog_id: reply is not None for blog_id, reply in zip(guessed, likes_replies, strict=True)
    }
    known_voted = helpful.read_voted(rest[:asked], guessed, user_id) if rest else {}
    known_saved = saved.read_saved(rest[asked:], user_id, guessed)[0] if rest else {}
    pulled_authors = []
    if any_pulled:
        followed_pulled = intersection([follows_keys.following(user_id), keys.feed_pull_authors()])
        pulled_authors = [int(author) for author in followed_pulled]
    if mark_due and pulled_authors:
        _mark_active_quietly(user_id, pulled_authors)
    while True:
        wanted = offset + FEED_PAGE_SIZE
        if inbox is None:
            pipe = get_redis().pipeline(transaction=False)
            _queue_inbox(pipe, user_id, max_time, wanted)
            (inbox,) = pipe.execute()
        items = [(int(score), int(member)) for member, score in inbox]
        inbox = None  # a page of deleted blogs reads on from where it ended
        if pulled_authors:
            items = sorted(
                set(items) | set(_pulled_items(pulled_authors, max_time, wanted)),
                key=lambda item: (item[0], str(item[1])),
                reverse=True,
            )
        rows = items[offset : offset + FEED_PAGE_SIZE]
        if not rows:
            return {"results": [], "min_time": max_time or 0, "offset": 0}
        scores = [score for score, _ in rows]
        min_time = scores[-1]
        next_offset = scores.count(min_time) + (offset if min_time == max_time else 0)
        # Deleted blogs stay in the inbox (removing them would shift the offsets a client
        # is scrolling by) and age out as it is trimmed; the documents leave them out.
        results = blog_documents([blog_id for _, blog_id in rows])
        if results:
            likes.overlay(results, user_id, known_likes, known_voted, known_saved)
            _served.remember(page_key, [doc["id"] for doc in results])
            return {"results": results, "min_time": min_time, "offset": next_offset}
        max_time, offset = min_time, next_offset


def _mark_active_quietly(user_id: int, authors: list[int]) -> None:
    """Mark the reader active; failing to only costs them pulls until the next mark."""
    try:
        mark_active(user_id=user_id, authors=authors)
    except redis.RedisError:
        log.warning("marking user %s an active fan failed", user_id, exc_info=True)


def _queue_inbox(pipe: Any, user_id: int, max_time: int | None, count: int) -> None:
    """Queue the read of the inbox's first `count` items at or below `max_time`, in feed
    order; each reply item is (blog id, score)."""
    pipe.zrevrangebyscore(
        keys.feed_inbox(user_id),
        "+inf" if max_time is None else max_time,
        0,
        start=0,
        num=count,
        withscores=True,
    )


def _pulled_items(authors: list[int], max_time: int | None, count: int) -> list[tuple[int, int]]:
    """The pulled authors' blogs that can reach this page: the newest `count` at or below
    `max_time`, in feed order. Every other blog of the last one's millisecond comes too,
    because the database may order blogs of one millisecond differently than the feed."""
    blogs = Blog.objects.filter(user_id__in=authors, pulled=True)
    if max_time is not None:
        blogs = blogs.filter(created_at__lt=_time_of(max_time + 1))
    newest = list(blogs.order_by("-created_at", "-id").values_list("id", "created_at")[:count])
    items = {(int(at.timestamp() * 1000), blog_id) for blog_id, at in newest}
    if len(newest) == count:
        last = min(score for score, _ in items)
        same_ms = blogs.filter(created_at__gte=_time_of(last), created_at__lt=_time_of(last + 1))
        items |= {(last, blog_id) for blog_id in same_ms.values_list("id", flat=True)}
    return sorted(items, key=lambda item: (item[0], str(item[1])), reverse=True)[:count]
