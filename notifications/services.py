"""Inbox writes: add a notification once (its dedup key is unique per recipient), keep
each inbox to NOTIFICATIONS_MAX, mark read. Called from tasks, never on a request that
triggered the notification (notifications.receivers enqueue them after the event's commit)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.conf import settings
from django.db import IntegrityError, transaction

from dianping import clock

from .models import Kind, Notification


def dedup_key(kind: str, *parts: int) -> str:
    """The event a notification stands for: `liked:<liker>:<note>`, `commented:<comment>`,
    `followed:<follower>`, `coupon_expiring:<order>`, `order_cancelled:<order>`,
    `sale_starting:<voucher>` (each per recipient)."""
    return ":".join([kind, *map(str, parts)])


def notification_add(
    *,
    recipient_id: int,
    kind: Kind,
    key: str,
    actor_id: int | None = None,
    blog_id: int | None = None,
    comment_id: int | None = None,
    voucher_id: int | None = None,
    order_id: int | None = None,
) -> Notification | None:
    """Add one notification unless its event was notified already (or its note or comment
    is gone meanwhile); the inbox is then trimmed. Nobody is told about their own act."""
    if actor_id is not None and actor_id == recipient_id:
        return None
    try:
        with transaction.atomic():
            notification = Notification.objects.create(
                recipient_id=recipient_id, kind=kind, dedup_key=key, actor_id=actor_id,
                blog_id=blog_id, comment_id=comment_id, voucher_id=voucher_id, order_id=order_id,
            )  # fmt: skip
    except IntegrityError:  # the unique key: a repeat; or the note was deleted meanwhile
        return None
    inbox_trim(recipient_id=recipient_id)
    return notification


def notifications_add_many(notifications: Sequence[Notification]) -> int:
    """Insert a beat job's batch but for the events told already (one query for their
    keys; the unique key still ignores a racing repeat); the recipients' inboxes are
    then trimmed. Returns how many were new."""
    if not notifications:
        return 0
    told = set(
        Notification.objects.filter(
            recipient_id__in={n.recipient_id for n in notifications},
            dedup_key__in={n.dedup_key for n in notifications},
        ).values_list("recipient_id", "dedup_key")
    )
    new = [n for n in notifications if (n.recipient_id, n.dedup_key) not in told]
    Notification.objects.bulk_create(new, ignore_conflicts=True)
    for recipient_id in {n.recipient_id for n in new}:
        inbox_trim(recipient_id=recipient_id)
    return len(new)


def inbox_trim(*, recipient_id: int) -> int:
    """Keep the newest NOTIFICATIONS_MAX: one index probe finds the first one too many,
    one DELETE takes it and everything older. Returns how many went."""
    mine = Notification.objects.filter(recipient_id=recipient_id)
    limit = settings.NOTIFICATIONS_MAX
    oldest_kept = mine.order_by("-id").values_list("id", flat=True)[limit : limit + 1]
    if not oldest_kept:
        return 0
    deleted, _ = mine.filter(id__lte=oldest_kept[0]).delete()
    return deleted


def notifications_mark_read(*, recipient_id: int, ids: Iterable[int] | None = None) -> int:
    """Mark the recipient's notifications read: those in `ids` (others' ids and unknown
    ones are ignored), or all when `ids` is None. Returns how many changed."""
    unread = Notification.objects.filter(recipient_id=recipient_id, read_at__isnull=True)
    if ids is not None:
        unread = unread.filter(id__in=list(ids))
    return unread.update(read_at=clock.now())


def notifications_drop(*, blog_id: int | None = None, comment_id: int | None = None) -> int:
    """Remove what was said about a note or comment that a moderator hid (a deleted one
    takes its notifications with it by cascade). Returns how many went."""
    if blog_id is None and comment_id is None:
        return 0
    rows = Notification.objects.all()
    rows = rows.filter(blog_id=blog_id) if blog_id is not None else rows
    rows = rows.filter(comment_id=comment_id) if comment_id is not None else rows
    deleted, _ = rows.delete()
    return deleted
