"""A shop's official replies to its reviews (ReviewReply): one per review, written,
edited and deleted by any member of the shop's staff (owner or clerk), hidden and
restored by moderators. Each committed change evicts the review's cached document,
which carries the reply to the note's detail and to the shop's reviews page (and the
near copies every process keeps of it, by Redis's key tracking).

Who may reply is read here from ShopStaff itself: the review's shop and the caller's
membership of it, nothing else."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils.translation import gettext

from shops.models import ShopStaff
from toolkit import clock
from toolkit.errors import Conflict
from toolkit.transactions import retry_on_lock_conflict

from . import reviews
from .caches import blog_evict
from .errors import BlogNotFound, Code, ReplyNotFound, ReviewNotFound
from .models import Blog, ReviewReply, Visibility
from .signals import content_hidden, reply_posted


def member_role(*, user_id: int, shop_id: int | None) -> str | None:
    """The user's role at the shop (`owner` or `clerk`), None when they do not work there."""
    if shop_id is None:
        return None
    memberships = ShopStaff.objects.filter(user_id=user_id, shop_id=shop_id)
    return memberships.values_list("role", flat=True).first()


def _is_review(*, shop_id: int | None, rating: int | None, status: int) -> bool:
    """A review is a visible note about a shop that rates it."""
    return shop_id is not None and rating is not None and status == Visibility.VISIBLE


def _check_member(blog_id: int, user_id: int) -> None:
    """404 unless the note is a visible review of a shop the caller works at: read
    without locks first, so that nobody else's call ever waits on the shop's row."""
    note = Blog.objects.filter(pk=blog_id).values("shop_id", "rating", "status").first()
    if note is None or not _is_review(**note):
        raise ReviewNotFound()
    if member_role(user_id=user_id, shop_id=note["shop_id"]) is None:
        raise ReviewNotFound()


def _locked_review(blog_id: int, user_id: int) -> Blog:
    """The review, locked after its shop's row (the lock order every note write keeps,
    blogs.reviews), checked again under the locks: the author may have moved or unrated
    it, a moderator hidden it, the shop let the caller go."""

    _check_member(blog_id, user_id)
    try:
        blog = reviews.note_locked_with_shops(blog_id)
    except BlogNotFound as error:  # deleted meanwhile
        raise ReviewNotFound() from error
    if not _is_review(shop_id=blog.shop_id, rating=blog.rating, status=blog.status):
        raise ReviewNotFound()
    if member_role(user_id=user_id, shop_id=blog.shop_id) is None:
        raise ReviewNotFound()
    return blog


@retry_on_lock_conflict
def reply_save(*, blog_id: int, user_id: int, text: str) -> tuple[ReviewReply, bool]:
    """Write the shop's reply to a review, or edit it; (the reply, whether this call
    created it). Two members replying at once queue on the review's row: the first
    creates, the second edits what the first wrote (the unique review is the backstop).
    A reply a moderator hid is not edited back into view (409 `reply_hidden`); only a
    new reply's creation tells the reviewer (notifications, off the request path)."""
    with transaction.atomic():
        blog = _locked_review(blog_id, user_id)
        shop_id = blog.shop_id
        assert shop_id is not None  # a review is about a shop (_locked_review)
        now = clock.now()
        created = False
        reply = ReviewReply.objects.filter(review_id=blog_id).first()
        if reply is None:
            try:
                with transaction.atomic():  # a savepoint: the unique review decides
                    reply = ReviewReply.objects.create(
                        review_id=blog_id,
                        shop_id=shop_id,
                        user_id=user_id,
                        text=text,
                        created_at=now,
                        updated_at=now,
                    )
                created = True
            except IntegrityError:  # one written past the lock (the admin): edit it
                reply = ReviewReply.objects.get(review_id=blog_id)
        if not created:
            if reply.status != Visibility.VISIBLE:
                raise Conflict(
                    gettext("A moderator hid this reply: delete it to write another."),
                    code=Code.REPLY_HIDDEN,
                )
            reply.text, reply.user_id, reply.updated_at = text, user_id, now
            reply.save(update_fields=["text", "user", "updated_at"])
        else:
            reply_posted.send(sender=ReviewReply, reply_id=reply.id)
        transaction.on_commit(lambda: blog_evict(blog_id), robust=True)
    return reply, created


@retry_on_lock_conflict
def reply_delete(*, blog_id: int, user_id: int) -> None:
    """A member of the shop takes the reply back (a hidden one too); 404 when there is
    none. The reviewer's notification stays: it told of a reply that was written."""
    with transaction.atomic():
        _locked_review(blog_id, user_id)
        deleted, _ = ReviewReply.objects.filter(review_id=blog_id).delete()
        if not deleted:
            raise ReplyNotFound()
        transaction.on_commit(lambda: blog_evict(blog_id), robust=True)


def reply_drop_on_move(*, blog_id: int) -> None:
    """A review moved to another shop (its author's edit, the note's row locked): the old
    shop's reply answers nothing there any more, and goes."""
    if ReviewReply.objects.filter(review_id=blog_id).delete()[0]:
        transaction.on_commit(lambda: blog_evict(blog_id), robust=True)


# Moderation (the admin's actions and its report queue, through blogs.services.moderate):
# idempotent, each returns the reply as it now is.


@retry_on_lock_conflict
def reply_hide(*, reply_id: int) -> ReviewReply:
    """Take a reply off its review everywhere (detail and the shop's reviews page), and
    the reviewer's notification of it with it."""
    return _set_reply_status(reply_id, Visibility.HIDDEN)


@retry_on_lock_conflict
def reply_restore(*, reply_id: int) -> ReviewReply:
    return _set_reply_status(reply_id, Visibility.VISIBLE)


def _set_reply_status(reply_id: int, status: int) -> ReviewReply:
    with transaction.atomic():
        reply = ReviewReply.objects.select_for_update().filter(pk=reply_id).first()
        if reply is None:
            raise ReplyNotFound()
        if reply.status != status:
            reply.status = status
            reply.save(update_fields=["status"])
            blog_id = reply.review_id
            if status == Visibility.HIDDEN:
                content_hidden.send(sender=ReviewReply, reply_id=reply_id, review_id=blog_id)
            transaction.on_commit(lambda: blog_evict(blog_id), robust=True)
    return reply
