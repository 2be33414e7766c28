"""The unread count behind the bell, cached per recipient in Redis (decision 303): every
signed-in client polls it, so a hit rides on the caller's token round trip
(accounts.tokens.touch_with) and costs no query.

A miss counts in the database (an indexed COUNT over at most NOTIFICATIONS_MAX rows,
decision 218) and stores the count unless it was evicted meanwhile: the version read
with the miss must still be the version when the count is stored (`store_unless_evicted`).
Every committed change to a recipient's unread rows evicts: the services after their bulk
inserts and updates, the model's post_save and post_delete (notifications.receivers) after
any row saved or deleted by whatever path, a cascade from a note, a comment, a user or a
voucher and the admin included. The TTL is only a backstop for an eviction that failed
(Redis unreachable just after a commit). The eviction also pokes the recipient's open
notification streams (notifications.live)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.db import transaction

from toolkit.redis import keys as toolkit_keys
from toolkit.redis.cache import store_unless_evicted
from toolkit.redis.client import get_redis

from . import keys, live
from .selectors import unread_count

TTL = 30 * 60  # seconds
_VERSION_TTL = 24 * 60 * 60  # far longer than any count takes: "never evicted" is as good


def queue_read(pipe: Any, recipient_id: int | None) -> None:
    """Queue the cached count and its version on a pipeline (for `touch_with`)."""
    if recipient_id is not None:
        key = keys.unread_count(recipient_id)
        pipe.get(key)
        pipe.get(toolkit_keys.cache_version(key))


def count_from(replies: Sequence[Any], recipient_id: int) -> int:
    """The count from `queue_read`'s replies; on a miss, counted and stored unless a change
    committed since the version was read."""
    raw, version = replies
    if raw is not None:
        return int(raw)
    count = unread_count(recipient_id=recipient_id)
    key = keys.unread_count(recipient_id)
    store_unless_evicted(key, toolkit_keys.cache_version(key), version or b"0", count, TTL)
    return count


def unread_changed(recipient_ids: Iterable[int], *, using: str | None = None) -> None:
    """Evict these recipients' counts once the current transaction commits (at once
    outside one)."""
    changed = frozenset(recipient_ids)
    if changed:
        transaction.on_commit(lambda: unread_evict(changed), using=using, robust=True)


def unread_evict(recipient_ids: Iterable[int]) -> None:
    """Drop the cached counts, each version bumped first, so a count loaded before the
    change is never stored after it; then poke the recipients' open streams
    (notifications.live). One round trip."""
    pipe = get_redis().pipeline(transaction=False)
    for recipient_id in set(recipient_ids):
        key = keys.unread_count(recipient_id)
        version = toolkit_keys.cache_version(key)
        pipe.incr(version)
        pipe.expire(version, _VERSION_TTL)
        pipe.delete(key)
        live.queue_poke(pipe, recipient_id)
    if len(pipe):
        pipe.execute()
