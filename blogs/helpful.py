"""Helpful votes on reviews: one per reader and review, never on one's own, kept as likes
are (decision 101): the voters are a sorted set per note in Redis, changed by the like
script with a version it bumps, and the note's `helpful` count in the database is written
only with a newer version than the one stored, so racing or retried votes never make it
drift. The count orders a shop's reviews "most helpful first" (the `blog_shop_helpful`
index) and shows in the note's cached document, evicted by every vote that moved it; the
reader's own vote is read live with the page's other per-reader states (decision 377)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolkit import clock
from toolkit.redis.client import get_redis
from toolkit.redis.scripts import lua

from . import keys
from .caches import blog_evict
from .errors import BlogNotFound, NotAReview, OwnReview
from .models import Blog
from .selectors import blog_exists, visible_blogs

# The like script does what a vote needs: add or remove a member, count, bump a version.
_VOTE = lua(__file__, "like.lua")


def helpful_vote(*, blog_id: int, user_id: int) -> dict[str, object]:
    """Vote a review helpful (idempotent): 404 for no visible note, 409 for a note about
    no shop, 403 for the caller's own. Answers the new state."""
    note = visible_blogs().filter(pk=blog_id).values("user_id", "shop_id").first()
    if note is None:
        raise BlogNotFound()
    if note["shop_id"] is None:
        raise NotAReview()
    if note["user_id"] == user_id:
        raise OwnReview()
    return _change("like", blog_id, user_id)


def helpful_unvote(*, blog_id: int, user_id: int) -> dict[str, object]:
    """Take a vote back (idempotent; allowed on any visible note, one's own included: an
    operator may have given the note to its voter)."""
    blog_exists(blog_id=blog_id)
    return _change("unlike", blog_id, user_id)


def _change(action: str, blog_id: int, user_id: int) -> dict[str, object]:
    script_keys = [keys.blog_helpful(blog_id), keys.blog_helpful_version(blog_id)]
    changed, count, version = _VOTE(script_keys, [action, user_id, clock.now_ms()])
    if changed:
        updated = Blog.objects.filter(pk=blog_id, helpful_version__lt=version).update(
            helpful=count, helpful_version=version
        )
        if updated:
            blog_evict(blog_id)  # its document shows the count
        elif not Blog.objects.filter(pk=blog_id).exists():
            helpful_forget(blog_id)  # the note was deleted meanwhile: no orphan keys
    return {"voted_helpful": action == "like", "helpful": int(count)}


def helpful_forget(blog_id: int) -> None:
    """A deleted note's voters and version go with it."""
    get_redis().delete(keys.blog_helpful(blog_id), keys.blog_helpful_version(blog_id))


def queue_voted(pipe: Any, blog_ids: Sequence[int], user_id: int | None) -> None:
    """Queue the reads of whether `user_id` voted each note helpful on a caller's pipeline
    (to share its round trip); nothing for an anonymous reader."""
    if user_id is not None:
        for blog_id in blog_ids:
            pipe.zscore(keys.blog_helpful(blog_id), user_id)


def read_voted(
    replies: Sequence[Any], blog_ids: Sequence[int], user_id: int | None
) -> dict[int, bool]:
    """The answers to `queue_voted`, per note."""
    if user_id is None:
        return dict.fromkeys(blog_ids, False)
    return {blog_id: reply is not None for blog_id, reply in zip(blog_ids, replies, strict=True)}


def voted(blog_ids: Sequence[int], user_id: int | None) -> dict[int, bool]:
    """`queue_voted` and `read_voted` in a round trip of their own (none when there is
    nothing to ask)."""
    if user_id is None or not blog_ids:
        return dict.fromkeys(blog_ids, False)
    pipe = get_redis().pipeline(transaction=False)
    queue_voted(pipe, blog_ids, user_id)
    return read_voted(pipe.execute(), blog_ids, user_id)
