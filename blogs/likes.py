"""Likes: a sorted set of likers per blog (scored by like time) that the DB count follows.

The like script changes the set and bumps a per-blog version in one step; the DB
`liked` is then written as "the count at version v" only where the stored version is
older. Racing likes and unlikes may reach the database in any order, a lost write
is repaired by the next one, and `liked` never drifts from the set.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from accounts.models import User
from toolkit import clock
from toolkit.api import saved
from toolkit.redis.client import get_redis
from toolkit.redis.scripts import lua

from . import helpful, keys
from .caches import hot_evict, like_count_cache
from .models import Blog
from .selectors import blog_exists, blog_shop
from .signals import note_liked

_LIKE = lua(__file__, "like.lua")
TOP_LIKERS = 5


def blog_like(*, blog_id: int, user_id: int) -> dict[str, object]:
    return _change("like", blog_id, user_id)


def blog_unlike(*, blog_id: int, user_id: int) -> dict[str, object]:
    return _change("unlike", blog_id, user_id)


def _change(action: str, blog_id: int, user_id: int) -> dict[str, object]:
    shop_id = blog_shop(blog_id=blog_id)  # 404 before touching Redis
    script_keys = [keys.blog_likes(blog_id), keys.blog_likes_version(blog_id)]
    changed, count, version = _LIKE(script_keys, [action, user_id, clock.now_ms()])
    if changed:
        if action == "like":
            # Not a repeat: the like script added the liker.
            note_liked.send(sender=Blog, blog_id=blog_id, liker_id=user_id, shop_id=shop_id)
        updated = Blog.objects.filter(pk=blog_id, liked_version__lt=version).update(
            liked=count, liked_version=version
        )
        like_count_cache().evict(blog_id)
        if updated:
            hot_evict()  # its place in the hot list may have moved (a newer change's did)
        elif not Blog.objects.filter(pk=blog_id).exists():
            likes_forget(blog_id)  # the blog was deleted meanwhile: no orphan like keys
    return {"is_liked": action == "like", "liked": int(count)}


def likes_forget(blog_id: int) -> None:
    """A deleted blog's likers and version go with it."""
    get_redis().delete(keys.blog_likes(blog_id), keys.blog_likes_version(blog_id))
    like_count_cache().evict(blog_id)


def overlay(
    documents: Sequence[dict[str, Any]],
    viewer_id: int | None,
    known: Mapping[int, bool] | None = None,
    known_voted: Mapping[int, bool] | None = None,
    known_saved: Mapping[int, bool] | None = None,
) -> None:
    """Fill in each blog document's live like count (`liked`) and the viewer's `is_liked`,
    `voted_helpful` and `saved`, because cached documents carry stale values. States the
    caller already read on an earlier round trip come in `known`, `known_voted` and
    `known_saved`; the rest are read in one round trip."""
    ids = [doc["id"] for doc in documents]
    liked, voted, marked = dict(known or {}), dict(known_voted or {}), dict(known_saved or {})
    ask_liked = [i for i in ids if i not in liked]
    ask_voted = [i for i in ids if i not in voted]
    ask_saved = [i for i in ids if i not in marked]
    if viewer_id is not None and (ask_liked or ask_voted or ask_saved):
        pipe = get_redis().pipeline(transaction=False)
        saved.queue_saved(pipe, viewer_id, saved.BLOG, ask_saved)
        queue_like_states(pipe, ask_liked, viewer_id)
        helpful.queue_voted(pipe, ask_voted, viewer_id)
        found, replies = saved.read_saved(pipe.execute(), viewer_id, ask_saved)
        marked.update(found)
        liked.update(
            read_like_states(replies[: len(ask_liked)], ask_liked, viewer_id, counts=False)
        )
        voted.update(helpful.read_voted(replies[len(ask_liked) :], ask_voted, viewer_id))
    counts = like_counts(ids)
    for doc in documents:
        doc["liked"], doc["is_liked"] = counts[doc["id"]], liked.get(doc["id"], False)
        doc["voted_helpful"] = voted.get(doc["id"], False)
        doc["saved"] = marked.get(doc["id"], False)


def reader_states(
    blog_ids: Sequence[int], user_id: int | None, *, counts: bool = False
) -> tuple[dict[int, Any], dict[int, bool]]:
    """`like_states` plus the reader's `saved` markers of the same blogs, read together so
    a list costs one round trip however many blogs it shows (none for an anonymous reader
    without `counts`)."""
    if not blog_ids or user_id is None:
        return like_states(blog_ids, user_id, counts=counts), dict.fromkeys(blog_ids, False)
    pipe = get_redis().pipeline(transaction=False)
    saved.queue_saved(pipe, user_id, saved.BLOG, blog_ids)
    queue_like_states(pipe, blog_ids, user_id)
    marked, replies = saved.read_saved(pipe.execute(), user_id, blog_ids)
    return read_like_states(replies, blog_ids, user_id, counts=counts), marked


def like_states(
    blog_ids: Sequence[int], user_id: int | None, *, counts: bool = False
) -> dict[int, Any]:
    """Per blog: whether the caller likes it or, with `counts`, (likes, liked by the
    caller), read live in one pipelined round trip (none if there is nothing to ask).
    Counts are for cached pages, whose copies of them would go stale."""
    if not blog_ids or (user_id is None and not counts):
        return dict.fromkeys(blog_ids, (0, False) if counts else False)
    pipe = get_redis().pipeline(transaction=False)
    queue_like_states(pipe, blog_ids, user_id)
    return read_like_states(pipe.execute(), blog_ids, user_id, counts=counts)


def queue_like_states(pipe: Any, blog_ids: Sequence[int], user_id: int | None) -> None:
    """`like_states`' reads of the caller's likes, queued on a caller's pipeline (to share
    its round trip); the counts come from their cache when the replies are read."""
    if user_id is not None:
        for blog_id in blog_ids:
            pipe.zscore(keys.blog_likes(blog_id), user_id)


def read_like_states(
    replies: Sequence[Any], blog_ids: Sequence[int], user_id: int | None, *, counts: bool
) -> dict[int, Any]:
    """The states from the replies to `queue_like_states`, in the same shape."""
    answers = iter(replies)
    likes = like_counts(blog_ids) if counts else {}
    states: dict[int, Any] = {}
    for blog_id in blog_ids:
        liked = user_id is not None and next(answers) is not None
        states[blog_id] = (likes[blog_id], liked) if counts else liked
    return states


def like_counts(blog_ids: Sequence[int]) -> dict[int, int]:
    """The blogs' live like counts: from this process's near copies (no round trip), the
    rest from Redis's cache, the missing ones counted in one pipelined round trip."""

    def load(missing: list[int]) -> dict[int, int]:
        pipe = get_redis().pipeline(transaction=False)
        for blog_id in missing:
            pipe.zcard(keys.blog_likes(blog_id))
        return dict(zip(missing, pipe.execute(), strict=True))

    raws = like_count_cache().lookup_many(list(blog_ids), load)
    return {blog_id: int(raws[blog_id] or 0) for blog_id in blog_ids}


def top_likers(*, blog_id: int) -> list[User]:
    """The first TOP_LIKERS likers in like order, with one DB query."""
    blog_exists(blog_id=blog_id)
    members = get_redis().zrange(keys.blog_likes(blog_id), 0, TOP_LIKERS - 1)
    ids = [int(member) for member in cast("list[bytes]", members)]  # no scores asked
    users = User.objects.in_bulk(ids)
    return [users[i] for i in ids if i in users]
