"""Blog writes. After each committed change the author's cached pages are marked
stale and rebuilt by a task; a new blog is pushed to the followers' feeds by a task."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils.translation import gettext

from dianping import clock
from dianping.errors import Conflict, Forbidden
from dianping.transactions import retry_on_lock_conflict
from search import index as search_index

from . import feed, likes, pages
from .caches import blog_evict, hot_evict
from .errors import BlogNotFound, Code
from .models import Blog, BlogComment

WRITABLE = ("title", "content", "images", "shop_id")


def blog_create(*, user_id: int, data: dict[str, Any]) -> Blog:
    """Publish: pushed to the followers' inboxes by a task, or, for an author with more
    than FEED_PUSH_MAX_FOLLOWERS followers, pulled by their feeds at read time."""
    from . import tasks

    with transaction.atomic():
        pulled = feed.is_pulled_author(user_id)
        if pulled:
            # Before the blog exists: a reader must never miss it. Should this transaction
            # roll back, an author listed without pulled blogs costs readers nothing.
            feed.mark_pull_author(user_id)
        blog = Blog.objects.create(
            user_id=user_id, pulled=pulled, pushed_at=clock.now() if pulled else None,
            **_writable(data),
        )  # fmt: skip
        blog_id = blog.id
        # A read of this id before it existed may have cached "no such blog".
        transaction.on_commit(lambda: blog_evict(blog_id), robust=True)
        transaction.on_commit(hot_evict, robust=True)  # one more blog to rank
        transaction.on_commit(lambda: pages_changed(user_id), robust=True)
        search_index.refresh_on_commit("notes", blog_id)
        if not pulled:
            transaction.on_commit(lambda: tasks.push_to_followers.delay(blog_id), robust=True)
    return blog


@retry_on_lock_conflict
def blog_update(*, blog_id: int, user_id: int, data: dict[str, Any]) -> Blog:
    with transaction.atomic():
        blog = _own(blog_id, user_id)
        fields = _writable(data)
        for name, value in fields.items():
            setattr(blog, name, value)
        if fields:
            blog.save(update_fields=[*fields, "updated_at"])
            transaction.on_commit(lambda: blog_evict(blog_id), robust=True)
            transaction.on_commit(lambda: pages_changed(user_id), robust=True)
            search_index.refresh_on_commit("notes", blog_id)
    return blog


@retry_on_lock_conflict
def blog_delete(*, blog_id: int, user_id: int) -> None:
    with transaction.atomic():
        _own(blog_id, user_id).delete()  # its cached detail goes with it (receivers)
        transaction.on_commit(lambda: likes.likes_forget(blog_id), robust=True)
        transaction.on_commit(lambda: pages_changed(user_id), robust=True)
        search_index.refresh_on_commit("notes", blog_id)


@retry_on_lock_conflict
def comment_create(
    *, blog_id: int, user_id: int, content: str, parent_id: int | None = None
) -> BlogComment:
    with transaction.atomic():
        # The note's count first: its row is then ours alone until commit, and comments on
        # one note queue here. Inserted first, each comment would share-lock the note's row
        # (its foreign key) and then wait to lock it exclusively: on InnoDB, two of them
        # deadlock.
        if not Blog.objects.filter(pk=blog_id).update(comments=F("comments") + 1):
            raise BlogNotFound()
        if (
            parent_id is not None
            and not BlogComment.objects.filter(pk=parent_id, blog_id=blog_id).exists()
        ):
            # Well formed, naming no comment of this note: as for any reference in a body
            # (dianping.api.fields.missing_reference), a 409.
            raise Conflict(gettext("No such comment on this blog."), code=Code.PARENT_NOT_FOUND)
        comment = BlogComment.objects.create(
            blog_id=blog_id, user_id=user_id, content=content, parent_id=parent_id
        )
        transaction.on_commit(lambda: blog_evict(blog_id), robust=True)  # its count moved
    return comment


def _own(blog_id: int, user_id: int) -> Blog:
    """The blog, locked, if the caller wrote it: 404 when missing, 403 when someone
    else's."""
    blog = Blog.objects.select_for_update().filter(pk=blog_id).first()
    if blog is None:
        raise BlogNotFound()
    if blog.user_id != user_id:
        raise Forbidden(gettext("Only the author may change this blog."), code=Code.NOT_AUTHOR)
    return blog


def _writable(data: dict[str, Any]) -> dict[str, Any]:
    """Only the fields a client may set; `user`, `liked` and `comments` never come in."""
    return {name: data[name] for name in WRITABLE if name in data}


def pages_changed(user_id: int) -> None:
    """After a committed change of a user's blogs: stale pages may no longer be stored,
    and the cached ones are rebuilt by a task."""
    from . import tasks

    pages.user_blogs_changed(user_id)
    tasks.rebuild_user_pages.delay(user_id)
