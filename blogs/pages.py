"""A user's blogs, newest first, cached page by page (seed 002).

- A page is cached on its first read, with a random TTL that every hit renews: hot
  pages stay, cold ones expire, and no two expire together.
- A reader that misses takes the page's lock (short wait), reads the cache again, then
  loads and stores. If the lock stays busy it serves from the database uncached.
- After a committed change the user's version is bumped, then a Celery task rebuilds
  the pages that are cached, under the same locks.
- Every store is conditional on the version seen before the database read, and a page
  is stored with that version: a read made before a change is never stored after it,
  and a page built before the latest change is a miss even if no rebuild ever ran.

Counts that change without the author (likes) are not cached: they are read live.
"""

from __future__ import annotations

import json
import random
from typing import Any, cast

from django.conf import settings
from django.db.models import QuerySet

from toolkit.api.lists import listed
from toolkit.redis.cache import encode, store_unless_evicted
from toolkit.redis.client import get_redis
from toolkit.redis.lock import RedisLock
from toolkit.redis.scripts import lua

from . import keys, likes
from .models import Blog
from .serializers import BlogSummarySerializer

_STORE = lua(__file__, "page_store.lua")
_READ = lua(__file__, "page_read.lua")
PAGE_SIZE = 10


def user_blogs_page(
    *, user_id: int, page: int, caller_id: int | None = None
) -> tuple[int, list[dict[str, Any]]]:
    """A user's blog count and one page of their blog summaries. The pages are cached,
    but `liked`, `is_liked` and `saved` (for `caller_id`) are read live, so a like shows at
    once. A hit costs two round trips: the page with its count, then the live states."""
    count, items = _cached_page(user_id, page)
    ids = [item["id"] for item in items]
    states, marked = likes.reader_states(ids, caller_id, counts=True)
    for item in items:
        item["liked"], item["is_liked"] = states[item["id"]]
        item["saved"] = marked[item["id"]]
    return count, items


def user_blogs_from_database(*, user_id: int, page: int) -> tuple[int, list[dict[str, Any]]]:
    """`user_blogs_page` for when Redis is unreachable, so the page still loads: the count
    and the page come from the database, and `liked` is the database's copy of the count."""
    count = _visible(user_id).count()
    offset = (page - 1) * PAGE_SIZE
    rows = list(_newest_first(user_id)[offset : offset + PAGE_SIZE])
    items = listed(BlogSummarySerializer(rows, many=True))
    for item, row in zip(items, rows, strict=True):
        item["liked"] = row.liked
    return count, items


def _cached_page(user_id: int, page: int) -> tuple[int, list[dict[str, Any]]]:
    raw_count, raw = _read(user_id, page)
    count = int(raw_count) if raw_count is not None else _count_load(user_id)
    if (page - 1) * PAGE_SIZE >= count:
        return count, []  # past the end: nothing to load, nothing to cache
    if raw is not None:
        return count, json.loads(raw)
    lock = RedisLock(_lock_name(user_id, page), ttl=5)
    if not lock.acquire(wait=settings.BLOG_PAGE_LOCK_WAIT):
        return count, page_load(user_id, page)  # someone else is building it: don't pile on
    try:
        _, raw = _read(user_id, page)
        return count, json.loads(raw) if raw is not None else _build(user_id, page)
    finally:
        lock.release()


def _read(user_id: int, page: int) -> tuple[bytes | None, bytes | None]:
    script_keys = [
        keys.user_blog_count(user_id),
        keys.user_blog_page(user_id, page),
        keys.user_blog_version(user_id),
        keys.user_blog_pages(user_id),
    ]
    count, data = _READ.run_direct(script_keys, [_ttl()])
    return count, data


def user_blogs_changed(user_id: int) -> None:
    """Call after a committed blog change: no page read before now can be stored or
    served, and the count is recounted."""
    pipe = get_redis().pipeline(transaction=False)
    pipe.incr(keys.user_blog_version(user_id))
    pipe.delete(keys.user_blog_count(user_id))
    pipe.execute()


def user_pages_rebuild(user_id: int) -> int:
    """Rebuild every cached page of the user (the async half of a change); returns how
    many. Takes each page's lock like readers do, waiting for a reader mid-build."""
    client = get_redis()
    rebuilt = 0
    for member in sorted(int(m) for m in client.smembers(keys.user_blog_pages(user_id))):
        with RedisLock(_lock_name(user_id, member), ttl=10, wait=settings.BLOG_REBUILD_LOCK_WAIT):
            if not client.exists(keys.user_blog_page(user_id, member)):
                continue  # expired: the next reader builds it
            _build(user_id, member)
            rebuilt += 1
    return rebuilt


def _build(user_id: int, page: int) -> list[dict[str, Any]]:
    """Load page `page` and store it unless a change committed meanwhile."""
    version = _version(user_id)
    items = page_load(user_id, page)
    script_keys = [
        keys.user_blog_page(user_id, page),
        keys.user_blog_version(user_id),
        keys.user_blog_pages(user_id),
    ]
    _STORE(script_keys, [version, encode(items), _ttl(), page])
    return items


def page_load(user_id: int, page: int) -> list[dict[str, Any]]:
    """One page of a user's blogs read from the database; the cache is not touched."""
    offset = (page - 1) * PAGE_SIZE
    rows = _newest_first(user_id)[offset : offset + PAGE_SIZE]
    return listed(BlogSummarySerializer(rows, many=True))


def _visible(user_id: int) -> QuerySet[Blog]:
    """The user's notes a moderator has not hidden (hiding one changes the pages as a
    delete would: blogs.services.blog_hide)."""
    return Blog.objects.filter(user_id=user_id, status=Blog.Status.VISIBLE)


def _newest_first(user_id: int) -> QuerySet[Blog]:
    return _visible(user_id).order_by("-created_at", "-id")


def _count_load(user_id: int) -> int:
    """Count in the database; cache it unless a change committed meanwhile."""
    version = _version(user_id)
    count = _visible(user_id).count()
    store_unless_evicted(
        keys.user_blog_count(user_id), keys.user_blog_version(user_id), version, count, _ttl()
    )
    return count


def _version(user_id: int) -> bytes:
    return cast("bytes | None", get_redis().get(keys.user_blog_version(user_id))) or b"0"


def _ttl() -> int:
    return settings.BLOG_PAGE_TTL + random.randint(0, settings.BLOG_PAGE_TTL // 2)


def _lock_name(user_id: int, page: int) -> str:
    return f"blog-page:{user_id}:{page}"
