"""What each event tells whom, checked when its task runs (the request that caused it
has committed). The apps it reads send signals (notifications.receivers) and never
import notifications."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from blogs import keys
from blogs.models import Blog, BlogComment, ReviewReply
from follows.models import Follow
from merchants.models import OfferDraft, ShopChange, ShopClaim
from shops.models import ShopStaff
from toolkit.redis.client import get_redis
from vouchers.models import VoucherOrder

from .models import Kind
from .services import dedup_key, notification_add, notification_comment_add


def followed(*, follower_id: int, followed_id: int) -> bool:
    """Tell a user about a new follower, once per follower however often they come back,
    and not if they left again before the task ran."""
    if not Follow.objects.filter(user_id=follower_id, followed_id=followed_id).exists():
        return False
    key = dedup_key(Kind.FOLLOWED, follower_id)
    return _added(recipient_id=followed_id, kind=Kind.FOLLOWED, key=key, actor_id=follower_id)


def liked(*, blog_id: int, liker_id: int) -> bool:
    """Tell the author about a like, once per liker and note (like, unlike, like again
    tells once), and not if it was taken back, or the note hidden, before the task ran."""
    with transaction.atomic():  # the note's row held: a moderator's hide waits, or came first
        visible = Blog.objects.select_for_update().filter(pk=blog_id, status=Blog.Status.VISIBLE)
        author_id = visible.values_list("user_id", flat=True).first()
        if author_id is None or get_redis().zscore(keys.blog_likes(blog_id), liker_id) is None:
            return False
        return _added(
            recipient_id=author_id,
            kind=Kind.LIKED,
            key=dedup_key(Kind.LIKED, liker_id, blog_id),
            actor_id=liker_id,
            blog_id=blog_id,
        )


def commented(*, comment_id: int) -> int:
    """Tell the note's author about a comment and, for a reply, the comment's author
    (one notification if they are the same person), unless the comment or its note was
    hidden before the task ran; each recipient's unread item about the note grows
    (decision 285). Returns how many were told."""
    blog_id = BlogComment.objects.filter(pk=comment_id).values_list("blog_id", flat=True).first()
    if blog_id is None:
        return 0
    with transaction.atomic():  # the note's row held, as every comment write and hide holds it
        if not Blog.objects.select_for_update().filter(pk=blog_id, status=Blog.Status.VISIBLE):
            return 0
        comment = (
            BlogComment.objects.select_related("blog", "parent")
            .only("id", "user_id", "blog__id", "blog__user_id", "parent__id", "parent__user_id")
            .filter(pk=comment_id, status=BlogComment.Status.VISIBLE)
            .first()
        )
        if comment is None:
            return 0
        recipients = [comment.blog.user_id]
        if comment.parent is not None:
            recipients.append(comment.parent.user_id)
        return sum(
            notification_comment_add(
                recipient_id=recipient_id,
                actor_id=comment.user_id,
                blog_id=comment.blog_id,
                comment_id=comment_id,
            )
            is not None
            for recipient_id in dict.fromkeys(recipients)
        )


def review_replied(*, reply_id: int) -> bool:
    """Tell the reviewer that the shop replied to their review, once per review (an edit,
    or a reply deleted and written again, tells nothing more), unless the reply or the
    review was hidden or deleted before the task ran. The shop speaks, not the member
    who wrote it: no actor; nobody is told of their own reply to their own review."""
    reply = (
        ReviewReply.objects.filter(
            pk=reply_id, status=ReviewReply.Status.VISIBLE, review__status=Blog.Status.VISIBLE
        )
        .values("user_id", "shop_id", "review_id", "review__user_id")
        .first()
    )
    if reply is None or reply["user_id"] == reply["review__user_id"]:
        return False
    review_id = reply["review_id"]
    return _added(
        recipient_id=reply["review__user_id"],
        kind=Kind.REVIEW_REPLIED,
        key=dedup_key(Kind.REVIEW_REPLIED, review_id),
        blog_id=review_id,
        shop_id=reply["shop_id"],
    )


def shop_reviewed(*, blog_id: int) -> int:
    """Tell the owners of a shop about a new review of it (a rated note about it), once
    per review, unless it was hidden, unrated or moved before the task ran; a reviewer
    who owns the shop is not told of their own review. Returns how many were told."""
    review = (
        Blog.objects.filter(
            pk=blog_id, status=Blog.Status.VISIBLE, shop__isnull=False, rating__isnull=False
        )
        .values("user_id", "shop_id")
        .first()
    )
    if review is None:
        return 0
    owners = ShopStaff.objects.filter(shop_id=review["shop_id"], role=ShopStaff.Role.OWNER)
    told = 0
    for owner_id in owners.values_list("user_id", flat=True):
        told += _added(
            recipient_id=owner_id,
            kind=Kind.SHOP_REVIEWED,
            key=dedup_key(Kind.SHOP_REVIEWED, blog_id),
            actor_id=review["user_id"],
            blog_id=blog_id,
            shop_id=review["shop_id"],
        )
    return told


def order_cancelled(*, order_id: int) -> bool:
    """Tell a buyer their unpaid order was cancelled by the pay timeout (or its backstop)."""
    order = (
        VoucherOrder.objects.filter(pk=order_id, status=VoucherOrder.Status.CANCELLED)
        .values("user_id", "voucher_id")
        .first()
    )
    if order is None:
        return False
    return _added(
        recipient_id=order["user_id"],
        kind=Kind.ORDER_CANCELLED,
        key=dedup_key(Kind.ORDER_CANCELLED, order_id),
        voucher_id=order["voucher_id"],
        order_id=order_id,
    )


def claim_decided(*, claim_id: int) -> bool:
    """Tell a user their shop claim was approved or rejected, with the operator's reason
    (once per claim)."""
    claim = (
        ShopClaim.objects.filter(pk=claim_id)
        .exclude(status=ShopClaim.Status.PENDING)
        .values("user_id", "shop_id", "status", "reason")
        .first()
    )
    if claim is None:
        return False
    approved = claim["status"] == ShopClaim.Status.APPROVED
    kind = Kind.CLAIM_APPROVED if approved else Kind.CLAIM_REJECTED
    return _added(
        recipient_id=claim["user_id"],
        kind=kind,
        key=dedup_key(kind, claim_id),
        shop_id=claim["shop_id"],
        reason="" if approved else claim["reason"],
    )


def shop_change_decided(*, change_id: int) -> int:
    """Tell the shop's owners that an operator approved the change of its name, address
    or position (SHOP_CHANGE_APPROVED) or rejected it (SHOP_CHANGE_REJECTED, with the
    reason), once per change; a change replaced by a newer request tells nobody, as no
    operator decided it. Returns how many were told."""
    change = (
        ShopChange.objects.filter(
            pk=change_id, status__in=[ShopChange.Status.APPROVED, ShopChange.Status.REJECTED]
        )
        .values("shop_id", "status", "reason")
        .first()
    )
    if change is None:
        return 0
    approved = change["status"] == ShopChange.Status.APPROVED
    kind = Kind.SHOP_CHANGE_APPROVED if approved else Kind.SHOP_CHANGE_REJECTED
    return _told_owners(
        change["shop_id"],
        kind=kind,
        key=dedup_key(kind, change_id),
        reason="" if approved else change["reason"],
    )


def offer_decided(*, offer_id: int) -> int:
    """Tell the shop's owners that an operator published their offer (OFFER_APPROVED,
    with its voucher) or sent it back (OFFER_RETURNED, with the reason), once per
    submission; nothing if the offer moved on before the task ran (it was submitted
    again, say). Returns how many were told."""
    offer = (
        OfferDraft.objects.filter(
            pk=offer_id, state__in=[OfferDraft.State.PUBLISHED, OfferDraft.State.RETURNED]
        )
        .values("shop_id", "voucher_id", "state", "submissions", "reason")
        .first()
    )
    if offer is None:
        return 0
    published = offer["state"] == OfferDraft.State.PUBLISHED
    kind = Kind.OFFER_APPROVED if published else Kind.OFFER_RETURNED
    return _told_owners(
        offer["shop_id"],
        kind=kind,
        key=dedup_key(kind, offer_id, offer["submissions"]),
        voucher_id=offer["voucher_id"],
        reason="" if published else offer["reason"],
    )


def _told_owners(shop_id: int, **fields: Any) -> int:
    """Tell each owner of the shop; returns how many were told."""
    owners = ShopStaff.objects.filter(shop_id=shop_id, role=ShopStaff.Role.OWNER)
    return sum(
        _added(recipient_id=owner_id, shop_id=shop_id, **fields)
        for owner_id in owners.values_list("user_id", flat=True)
    )


def _added(**fields: Any) -> bool:
    return notification_add(**fields) is not None
