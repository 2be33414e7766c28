"""Inbox writes: add a notification once (its dedup key is unique per recipient), fold
comments on one note into one unread item, keep each inbox to NOTIFICATIONS_MAX, mark
read. Called from tasks, never on a request that triggered the notification
(notifications.receivers enqueue them after the event's commit)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Sequence

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Exists, F, OuterRef

from blogs.models import BlogComment, Visibility
from toolkit import clock
from toolkit.redis.ratelimit import SlidingWindowLimiter

from .metrics import sent
from .models import Kind, Notification
from .unread import unread_changed

COMMENT_CAP_SCOPE = "notify_comment"


def dedup_key(kind: str, *parts: int) -> str:
    """The event a notification stands for: `liked:<liker>:<note>`, `commented:<comment>`,
    `followed:<follower>`, `coupon_expiring:<order>`, `order_cancelled:<order>`,
    `sale_starting:<voucher>`, `claim_approved:<claim>`, `claim_rejected:<claim>`,
    `offer_approved:<offer>:<submission>`, `offer_returned:<offer>:<submission>` (each per
    owner), `sale_started:<voucher>`, `sale_sold_out:<voucher>`,
    `shop_change_approved:<change>`, `shop_change_rejected:<change>` (each per owner),
    `review_replied:<review>` (the shop's reply to a review, told once however often it is
    edited or written again), `shop_reviewed:<review>` (each per recipient)."""
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
    shop_id: int | None = None,
    reason: str = "",
) -> Notification | None:
    """Add one notification unless its event was notified already (or its note or comment
    is gone meanwhile); the inbox is then trimmed. Nobody is told about their own act."""
    if actor_id is not None and actor_id == recipient_id:
        return None
    try:
        with transaction.atomic():
            notification = Notification.objects.create(
                recipient_id=recipient_id,
                kind=kind,
                dedup_key=key,
                actor_id=actor_id,
                blog_id=blog_id,
                comment_id=comment_id,
                voucher_id=voucher_id,
                order_id=order_id,
                shop_id=shop_id,
                reason=reason,
            )
    except IntegrityError:  # the unique key: a repeat; or the note was deleted meanwhile
        return None
    sent(kind).inc()
    inbox_trim(recipient_id=recipient_id)
    return notification


def notification_comment_add(
    *, recipient_id: int, actor_id: int, blog_id: int, comment_id: int
) -> Notification | None:
    """Tell a user about a comment on a note: folded into their unread item about that
    note, which moves to the top (a new id) with its count grown and this comment and its
    author shown (decision 285); once they have read it, the next comment starts a new
    item. Nobody is told about their own comment, a repeat tells nothing, and past
    NOTIFICATIONS_COMMENTS_PER_HOUR of one user's comments to one recipient nothing more
    is told (decision 287). The caller holds the note's row (producers.commented), so the
    note's items change one comment at a time."""
    if actor_id == recipient_id:
        return None
    key = dedup_key(Kind.COMMENTED, comment_id)
    mine = Notification.objects.filter(recipient_id=recipient_id)
    if mine.filter(dedup_key=key).exists():  # a repeat must not use up the cap
        return None
    cap, subject = _comment_cap(), f"{actor_id}:{recipient_id}"
    decision = cap.hit(subject) if cap is not None else None
    if decision is not None and not decision.allowed:
        return None
    try:
        with transaction.atomic():
            # Locked: a mark-read waits, or marked them first and they are not folded.
            # Only one is ever unread per note, but inboxes from before decision 285 may
            # hold several: they fold together.
            unread = mine.filter(kind=Kind.COMMENTED, blog_id=blog_id, read_at__isnull=True)
            folded = dict(unread.select_for_update().values_list("id", "count"))
            mine.filter(pk__in=list(folded)).delete()
            notification = Notification.objects.create(
                recipient_id=recipient_id,
                kind=Kind.COMMENTED,
                dedup_key=key,
                actor_id=actor_id,
                blog_id=blog_id,
                comment_id=comment_id,
                count=1 + sum(folded.values()),
            )
    except IntegrityError:  # a racing repeat, or the note deleted meanwhile
        if cap is not None and decision is not None:
            cap.refund(subject, decision)
        return None
    sent(Kind.COMMENTED).inc()
    inbox_trim(recipient_id=recipient_id)
    return notification


def _comment_cap() -> SlidingWindowLimiter | None:
    per_hour = settings.NOTIFICATIONS_COMMENTS_PER_HOUR
    return SlidingWindowLimiter(COMMENT_CAP_SCOPE, [(per_hour, 3600)]) if per_hour > 0 else None


def notifications_comments_gone(*, comment_ids: Collection[int]) -> int:
    """Before comments are deleted or hidden (their note's row locked): an item that shows
    one of them but stands for more shows instead the newest earlier comment it may stand
    for, and counts one fewer (decision 288), so taking a comment back never takes other
    people's with it. Items of that one comment alone are left to go with it. Returns
    how many items changed."""
    gone = list(comment_ids)
    shown = Notification.objects.filter(comment_id__in=gone, count__gt=1).values(
        "id", "recipient_id", "blog_id", "blog__user_id", "comment_id"
    )
    changed = 0
    for item in shown:
        recipient_id = item["recipient_id"]
        # Not one another item shows (a read one, say): that item holds its dedup key.
        shown_elsewhere = Notification.objects.filter(
            recipient_id=recipient_id, comment_id=OuterRef("pk")
        )
        earlier = (
            BlogComment.objects.filter(
                blog_id=item["blog_id"], status=Visibility.VISIBLE, id__lt=item["comment_id"]
            )
            .exclude(pk__in=gone)
            .exclude(user_id=recipient_id)
            .exclude(Exists(shown_elsewhere))
        )
        if item["blog__user_id"] != recipient_id:  # told as the author of the comment replied to
            earlier = earlier.filter(parent__user_id=recipient_id)
        newest = earlier.order_by("-id").values("id", "user_id").first()
        if newest is None:
            continue
        Notification.objects.filter(pk=item["id"]).update(
            comment_id=newest["id"],
            actor_id=newest["user_id"],
            count=F("count") - 1,
            dedup_key=dedup_key(Kind.COMMENTED, newest["id"]),
        )
        changed += 1
    return changed


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
    Notification.objects.bulk_create(new, ignore_conflicts=True)  # no post_save: evicted here
    for kind, count in Counter(n.kind for n in new).items():
        sent(kind).inc(count)
    unread_changed(n.recipient_id for n in new)
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
    changed = unread.update(read_at=clock.now())  # no post_save: evicted here
    if changed:
        unread_changed([recipient_id])
    return changed


def notifications_drop(*, blog_id: int | None = None, comment_id: int | None = None) -> int:
    """Remove what was said about a note or comment that a moderator hid (a deleted one
    takes its notifications with it by cascade); an item that stands for other comments
    too shows one of those instead (`notifications_comments_gone`). Returns how many went."""
    if blog_id is None and comment_id is None:
        return 0
    if comment_id is not None:
        notifications_comments_gone(comment_ids=[comment_id])
    rows = Notification.objects.all()
    rows = rows.filter(blog_id=blog_id) if blog_id is not None else rows
    rows = rows.filter(comment_id=comment_id) if comment_id is not None else rows
    deleted, _ = rows.delete()
    return deleted


def notifications_reply_gone(*, review_id: int) -> int:
    """A moderator hid the shop's reply to a review: the reviewer's notification of it
    goes (restoring it does not bring it back). Returns how many went."""
    rows = Notification.objects.filter(kind=Kind.REVIEW_REPLIED, blog_id=review_id)
    deleted, _ = rows.delete()
    return deleted
