"""notifications' answers to other apps' events, connected in NotificationsConfig.ready().
Each enqueues its task after the event's commit (a rolled back event tells nobody), and
robustly (a broker outage loses the notification, never fails the event)."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models.signals import post_delete, post_save

from blogs.signals import (
    comment_posted,
    comments_deleting,
    content_hidden,
    note_liked,
    reply_posted,
    review_published,
)
from follows.signals import follow_synced
from merchants.signals import change_decided, claim_decided, offer_decided
from vouchers.signals import order_timed_out

from . import services, tasks
from .models import Notification
from .unread import unread_changed


def _after_commit(task: Any, *args: int) -> None:
    transaction.on_commit(lambda: task.delay(*args), robust=True)


def _followed(sender: Any, *, user_id: int, target_id: int, following: bool, **_: Any) -> None:
    """A follow synced (a repeat too: the task tells each follower once)."""
    if following:
        _after_commit(tasks.notify_followed, user_id, target_id)


def _liked(sender: Any, *, blog_id: int, liker_id: int, **_: Any) -> None:
    _after_commit(tasks.notify_liked, blog_id, liker_id)


def _commented(sender: Any, *, comment_id: int, **_: Any) -> None:
    _after_commit(tasks.notify_commented, comment_id)


def _replied(sender: Any, *, reply_id: int, **_: Any) -> None:
    _after_commit(tasks.notify_review_replied, reply_id)


def _reviewed(sender: Any, *, blog_id: int, **_: Any) -> None:
    _after_commit(tasks.notify_shop_reviewed, blog_id)


def _timed_out(sender: Any, *, order_id: int, **_: Any) -> None:
    _after_commit(tasks.notify_order_cancelled, order_id)


def _claim_decided(sender: Any, *, claim_id: int, **_: Any) -> None:
    _after_commit(tasks.notify_claim_decided, claim_id)


def _offer_decided(sender: Any, *, offer_id: int, **_: Any) -> None:
    _after_commit(tasks.notify_offer_decided, offer_id)


def _change_decided(sender: Any, *, change_id: int, **_: Any) -> None:
    _after_commit(tasks.notify_shop_change_decided, change_id)


def _hidden(
    sender: Any,
    *,
    blog_id: int | None = None,
    comment_id: int | None = None,
    review_id: int | None = None,
    **_: Any,
) -> None:
    """What was said about a hidden note, comment or shop's reply goes, in the hider's
    transaction (restoring it does not bring those back)."""
    if review_id is not None:  # a reply: its review stays, only the reply's item goes
        services.notifications_reply_gone(review_id=review_id)
    services.notifications_drop(blog_id=blog_id, comment_id=comment_id)


def _deleting(sender: Any, *, comment_ids: list[int], **_: Any) -> None:
    """Items that also stand for other comments keep standing for those (the rest go with
    the comments, by cascade), in the deleter's transaction."""
    services.notifications_comments_gone(comment_ids=comment_ids)


def _saved(sender: Any, instance: Notification, using: str, **_: Any) -> None:
    """However a row is saved, its recipient's cached unread count goes after the commit
    (decision 303); bulk inserts and updates evict in the services."""
    unread_changed([instance.recipient_id], using=using)


def _deleted(sender: Any, instance: Notification, using: str, **_: Any) -> None:
    """However an unread row goes (trimmed, folded, dropped, in a cascade from its note,
    comment, actor or voucher, by the admin), its recipient's cached count goes after the
    commit (decision 303)."""
    if instance.read_at is None:
        unread_changed([instance.recipient_id], using=using)


def connect() -> None:
    follow_synced.connect(_followed, dispatch_uid="notifications.followed")
    note_liked.connect(_liked, dispatch_uid="notifications.liked")
    comment_posted.connect(_commented, dispatch_uid="notifications.commented")
    reply_posted.connect(_replied, dispatch_uid="notifications.review_replied")
    review_published.connect(_reviewed, dispatch_uid="notifications.shop_reviewed")
    order_timed_out.connect(_timed_out, dispatch_uid="notifications.order_cancelled")
    claim_decided.connect(_claim_decided, dispatch_uid="notifications.claim_decided")
    offer_decided.connect(_offer_decided, dispatch_uid="notifications.offer_decided")
    change_decided.connect(_change_decided, dispatch_uid="notifications.change_decided")
    content_hidden.connect(_hidden, dispatch_uid="notifications.hidden")
    comments_deleting.connect(_deleting, dispatch_uid="notifications.comments_deleting")
    post_save.connect(_saved, sender=Notification, dispatch_uid="notifications.unread_saved")
    post_delete.connect(_deleted, sender=Notification, dispatch_uid="notifications.unread_deleted")
