"""Blog writes. After each committed change the author's cached pages are marked
stale and rebuilt by a task; a new blog is pushed to the followers' feeds by a task."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F, QuerySet
from django.utils.translation import gettext

from search import tasks as search_tasks
from shops.models import SUB_SCORES
from toolkit import clock
from toolkit.errors import Conflict, Forbidden, InvalidInput, NotFound
from toolkit.transactions import retry_on_lock_conflict

from . import feed, helpful, likes, pages, replies, reviews
from .caches import blog_evict, hot_evict
from .errors import BlogNotFound, Code, CommentNotFound
from .models import Blog, BlogComment, Report, ReviewReply, Visibility
from .signals import comment_posted, comments_deleting, content_hidden, review_published

WRITABLE = ("title", "content", "images", "shop_id", "rating", *SUB_SCORES)


@retry_on_lock_conflict
def blog_create(*, user_id: int, data: dict[str, Any]) -> Blog:
    """Publish: pushed to the followers' inboxes by a task, or, for an author with more
    than FEED_PUSH_MAX_FOLLOWERS followers, pushed to their active fans only and pulled
    by the other followers' feeds at read time. A note
    about a shop is one of its reviews, and its rating the author's rating of it."""
    from . import tasks

    fields = _writable(data)
    _check_rating(fields)
    with transaction.atomic():
        shop_id = fields.get("shop_id")
        reviews.lock_shops([shop_id])  # before the insert (blogs.reviews: lock order)
        pulled = feed.is_pulled_author(user_id)
        if pulled:
            # Before the blog exists: a reader must never miss it. Should this transaction
            # roll back, an author listed without pulled blogs costs readers nothing.
            feed.mark_pull_author(user_id)
        blog = Blog.objects.create(
            user_id=user_id,
            pulled=pulled,
            **fields,
        )
        reviews.reviews_changed(user_id=user_id, shop_ids=[shop_id])
        blog_id = blog.id
        # A read of this id before it existed may have cached "no such blog".
        transaction.on_commit(lambda: blog_evict(blog_id), robust=True)
        transaction.on_commit(hot_evict, robust=True)  # one more blog to rank
        transaction.on_commit(lambda: pages_changed(user_id), robust=True)
        search_tasks.refresh_on_commit("notes", blog_id)
        transaction.on_commit(lambda: tasks.push_to_followers.delay(blog_id), robust=True)
        if shop_id is not None and blog.rating is not None:  # a review: the shop's owners hear
            review_published.send(sender=Blog, blog_id=blog_id)
    return blog


@retry_on_lock_conflict
def blog_update(*, blog_id: int, user_id: int, data: dict[str, Any]) -> Blog:
    """A hidden note is a 404 to its author too: it cannot be edited back into view."""
    fields = _writable(data)
    with transaction.atomic():
        blog = _own_with_shops(blog_id, user_id, also=fields.get("shop_id"), visible=True)
        old_shop_id = blog.shop_id
        for name, value in fields.items():
            setattr(blog, name, value)
        # Only when they change: a note whose shop was deleted keeps its words editable.
        if fields.keys() & {"rating", "shop_id", *SUB_SCORES}:
            _check_rating(
                {name: getattr(blog, name) for name in ("shop_id", "rating", *SUB_SCORES)}
            )
        if fields:
            blog.save(update_fields=[*fields, "updated_at"])
            if blog.shop_id != old_shop_id:  # the old shop's reply answers nothing here
                replies.reply_drop_on_move(blog_id=blog_id)
            reviews.reviews_changed(user_id=user_id, shop_ids=[old_shop_id, blog.shop_id])
            transaction.on_commit(lambda: blog_evict(blog_id), robust=True)
            transaction.on_commit(lambda: pages_changed(user_id), robust=True)
            search_tasks.refresh_on_commit("notes", blog_id)
    return blog


@retry_on_lock_conflict
def blog_delete(*, blog_id: int, user_id: int | None) -> None:
    """Its author deletes a note (`user_id` None: a moderator, in the admin)."""
    with transaction.atomic():
        blog = (  # None: a moderator's
            reviews.note_locked_with_shops(blog_id)
            if user_id is None
            else _own_with_shops(blog_id, user_id)
        )
        author_id = blog.user_id
        blog.reviews_counted = True  # here, below: the receivers need not count again
        blog.delete()  # its cached detail goes with it (receivers)
        reviews.reviews_changed(user_id=author_id, shop_ids=[blog.shop_id])
        transaction.on_commit(lambda: likes.likes_forget(blog_id), robust=True)
        transaction.on_commit(lambda: helpful.helpful_forget(blog_id), robust=True)
        transaction.on_commit(lambda: pages_changed(author_id), robust=True)
        search_tasks.refresh_on_commit("notes", blog_id)


@retry_on_lock_conflict
def comment_create(
    *, blog_id: int, user_id: int, content: str, parent_id: int | None = None
) -> BlogComment:
    with transaction.atomic():
        # The note's count first: its row is then ours alone until commit, and comments on
        # one note queue here. Inserted first, each comment would share-lock the note's row
        # (its foreign key) and then wait to lock it exclusively: on InnoDB, two of them
        # deadlock.
        visible = Blog.objects.filter(pk=blog_id, status=Visibility.VISIBLE)
        if not visible.update(comments=F("comments") + 1):
            raise BlogNotFound()
        if (
            parent_id is not None
            and not BlogComment.objects.filter(
                pk=parent_id, blog_id=blog_id, status=Visibility.VISIBLE
            ).exists()
        ):
            # Well formed, naming no comment of this note: as for any reference in a body
            # (toolkit.api.fields.missing_reference), a 409.
            raise Conflict(gettext("No such comment on this blog."), code=Code.PARENT_NOT_FOUND)
        comment = BlogComment.objects.create(
            blog_id=blog_id, user_id=user_id, content=content, parent_id=parent_id
        )
        transaction.on_commit(lambda: blog_evict(blog_id), robust=True)  # its count moved
        comment_posted.send(sender=BlogComment, comment_id=comment.id)
    return comment


@retry_on_lock_conflict
def comment_delete(*, blog_id: int, comment_id: int, user_id: int | None) -> int:
    """Its author deletes a comment (`user_id` None: a moderator, in the admin), and with
    it the replies beneath it: a thread whose root is gone has nothing to reply to, and
    a tombstone would keep the words its author took back on every reader's screen. The
    note's count drops by the visible ones among them. Returns how many comments went."""
    with transaction.atomic():
        _lock_note(blog_id)  # first, as comment_create does: comments on a note queue
        comment = BlogComment.objects.filter(pk=comment_id, blog_id=blog_id).first()
        if comment is None:
            raise CommentNotFound()
        if user_id is not None and comment.user_id != user_id:
            raise Forbidden(
                gettext("Only its author may delete this comment."), code=Code.NOT_COMMENTER
            )
        thread = _thread(comment_id)
        counted = BlogComment.objects.filter(pk__in=thread, status=Visibility.VISIBLE).count()
        comments_deleting.send(sender=BlogComment, comment_ids=thread)
        BlogComment.objects.filter(pk__in=thread).delete()
        _recount(blog_id, -counted)
    return len(thread)


# Moderation. The admin's actions (blogs.admin) call these, one note or comment at a time;
# each is idempotent and returns the row as it now is. Whatever follows a note's
# visibility is kept here: its shop's review statistics (recounted under the shop's row
# lock, taken before the note's), the search index, the notifications about it, the caches.


@retry_on_lock_conflict
def blog_hide(*, blog_id: int) -> Blog:
    """Take a note out of every list and cache: its detail is a 404 (to its author too),
    and the hot list, its author's pages, followers' feeds, its comments and its shop's
    reviews leave it out. Feeds keep its id and skip it when read (as for a deleted
    note), so the offsets readers scroll by never shift."""
    return _set_blog_status(blog_id, Visibility.HIDDEN)


@retry_on_lock_conflict
def blog_restore(*, blog_id: int) -> Blog:
    """Undo `blog_hide`: the note is back wherever it was, feeds included."""
    return _set_blog_status(blog_id, Visibility.VISIBLE)


@retry_on_lock_conflict
def comment_hide(*, comment_id: int) -> BlogComment:
    """Take a comment out of its note's list and count. Replies to it stay: they are
    other people's words."""
    return _set_comment_status(comment_id, Visibility.HIDDEN)


@retry_on_lock_conflict
def comment_restore(*, comment_id: int) -> BlogComment:
    return _set_comment_status(comment_id, Visibility.VISIBLE)


@retry_on_lock_conflict
def moderate(*, kind: str, target_id: int, hide: bool, by_user_id: int | None) -> None:
    """A moderator's call on a note, comment or shop's reply (`kind` a Report.Kind): hide
    it, or keep it (restore it if hidden); either way its open reports close with the verdict, in
    the same transaction. A target deleted since it was reported closes its reports all
    the same."""
    with transaction.atomic():
        try:
            if kind == Report.Kind.BLOG:
                (blog_hide if hide else blog_restore)(blog_id=target_id)
            elif kind == Report.Kind.REPLY:
                (replies.reply_hide if hide else replies.reply_restore)(reply_id=target_id)
            else:
                (comment_hide if hide else comment_restore)(comment_id=target_id)
        except NotFound:
            pass
        status = Report.Status.HIDDEN if hide else Report.Status.DISMISSED
        reports_close(kind=kind, target_id=target_id, status=status, by_user_id=by_user_id)


def _set_blog_status(blog_id: int, status: int) -> Blog:
    with transaction.atomic():
        blog = reviews.note_locked_with_shops(blog_id)
        if blog.status != status:
            blog.status = status
            blog.save(update_fields=["status", "updated_at"])
            user_id = blog.user_id
            reviews.reviews_changed(user_id=user_id, shop_ids=[blog.shop_id])
            search_tasks.refresh_on_commit("notes", blog_id)
            if status == Visibility.HIDDEN:
                content_hidden.send(sender=Blog, blog_id=blog_id)
            transaction.on_commit(lambda: blog_evict(blog_id), robust=True)
            transaction.on_commit(hot_evict, robust=True)  # ranked, and counted
            transaction.on_commit(lambda: pages_changed(user_id), robust=True)
    return blog


def _set_comment_status(comment_id: int, status: int) -> BlogComment:
    blog_id = BlogComment.objects.filter(pk=comment_id).values_list("blog_id", flat=True).first()
    if blog_id is None:
        raise CommentNotFound()
    with transaction.atomic():
        _lock_note(blog_id)  # the note first, as every comment write
        comment = BlogComment.objects.filter(pk=comment_id).first()
        if comment is None:
            raise CommentNotFound()
        if comment.status != status:
            comment.status = status
            comment.save(update_fields=["status"])
            _recount(blog_id, -1 if status == Visibility.HIDDEN else +1)
            if status == Visibility.HIDDEN:
                content_hidden.send(sender=BlogComment, comment_id=comment_id)
    return comment


def _lock_note(blog_id: int) -> None:
    """Lock the note's row, before any of its comments: every write that changes its
    comment count (create, delete, hide, restore) takes the row first, so they queue
    and never deadlock on InnoDB (see comment_create)."""
    if not Blog.objects.select_for_update().filter(pk=blog_id).values_list("id").first():
        raise BlogNotFound()


def _thread(comment_id: int) -> list[int]:
    """The comment and every reply beneath it, at any depth (one query per level)."""
    found, level = [comment_id], [comment_id]
    while level:
        level = list(BlogComment.objects.filter(parent_id__in=level).values_list("id", flat=True))
        found += level
    return found


def _recount(blog_id: int, delta: int) -> None:
    """Move the note's comment count (its row locked) and evict its cached detail."""
    if delta:
        Blog.objects.filter(pk=blog_id).update(comments=F("comments") + delta)
        transaction.on_commit(lambda: blog_evict(blog_id), robust=True)


def report_create(
    *, user_id: int, kind: str, target_id: int, reason: str, text: str = ""
) -> tuple[Report, bool]:
    """Report a visible note, comment or shop's reply (on a visible note); (the report,
    whether this call made it). A user's
    repeated report of the same target while it waits returns the open one unchanged: one
    vote per user in the queue, and a retried request is harmless."""
    visible: QuerySet[Blog] | QuerySet[BlogComment] | QuerySet[ReviewReply]
    visible = Blog.objects.filter(status=Visibility.VISIBLE)
    if kind == Report.Kind.COMMENT:
        visible = BlogComment.objects.filter(
            status=Visibility.VISIBLE, blog__status=Visibility.VISIBLE
        )
    elif kind == Report.Kind.REPLY:
        visible = ReviewReply.objects.filter(
            status=Visibility.VISIBLE, review__status=Visibility.VISIBLE
        )
    if not visible.filter(pk=target_id).exists():
        message = (
            gettext("Nothing to report: no such reply.")
            if kind == Report.Kind.REPLY
            else gettext("Nothing to report: no such note or comment.")
        )
        raise Conflict(message, code=Code.REPORT_TARGET_NOT_FOUND)
    fields = {"reporter_id": user_id, "kind": kind, "target_id": target_id, "open": True}
    try:
        with transaction.atomic():
            return Report.objects.create(**fields, reason=reason, text=text), True
    except IntegrityError:  # the unique open report: a concurrent or earlier one
        return Report.objects.get(**fields), False


def reports_close(*, kind: str, target_id: int, status: str, by_user_id: int | None) -> int:
    """Close every open report of a target as `status` (hidden or dismissed); returns
    how many."""
    return Report.objects.filter(kind=kind, target_id=target_id, open=True).update(
        status=status, open=None, handled_at=clock.now(), handled_by_id=by_user_id
    )


def _own_with_shops(
    blog_id: int, user_id: int, *, also: int | None = None, visible: bool = False
) -> Blog:
    """The note, locked after its shop's row (`reviews.note_locked_with_shops`), if the caller wrote
    it: 404 when missing (or, with `visible`, hidden), 403 when someone else's."""
    blog = reviews.note_locked_with_shops(blog_id, also=also)
    if visible and blog.status != Visibility.VISIBLE:
        raise BlogNotFound()
    if blog.user_id != user_id:
        raise Forbidden(gettext("Only the author may change this blog."), code=Code.NOT_AUTHOR)
    return blog


def _check_rating(fields: dict[str, Any]) -> None:
    """A rating rates a shop: a note about no shop carries none. Sub-scores detail a
    rating: a note without one carries none (they count only beside it, decision 376)."""
    if fields.get("rating") is not None and fields.get("shop_id") is None:
        raise InvalidInput(
            gettext("Only a note about a shop can rate it."), code=Code.RATING_WITHOUT_SHOP
        )
    if fields.get("rating") is None and any(fields.get(name) is not None for name in SUB_SCORES):
        raise InvalidInput(
            gettext("Taste, environment and service scores need an overall rating."),
            code=Code.SUB_SCORE_WITHOUT_RATING,
        )


def _writable(data: dict[str, Any]) -> dict[str, Any]:
    """Only the fields a client may set; `user`, `liked` and `comments` never come in."""
    return {name: data[name] for name in WRITABLE if name in data}


def pages_changed(user_id: int) -> None:
    """After a committed change of a user's blogs: stale pages may no longer be stored,
    and the cached ones are rebuilt by a task."""
    from . import tasks

    pages.user_blogs_changed(user_id)
    tasks.rebuild_user_pages.delay(user_id)
