"""Blog reads that hit the database."""

from __future__ import annotations

import json
from typing import Any

from django.db.models import QuerySet

from .caches import blog_cache
from .errors import BlogNotFound
from .models import Blog, BlogComment


def blog_get(*, blog_id: int) -> Blog:
    blog = Blog.objects.select_related("user").filter(pk=blog_id).first()
    if blog is None:
        raise BlogNotFound()
    return blog


def blog_detail(*, blog_id: int, viewer_id: int | None) -> dict[str, Any]:
    """A blog as the API shows it, with its author, from the blog cache (a database read
    only on a miss), its like count and `is_liked` read live on the same round trip."""
    from . import likes  # likes reads through this module
    from .serializers import BlogSerializer  # the cached value is the API's own shape

    def load() -> dict[str, Any] | None:
        blog = Blog.objects.select_related("user").filter(pk=blog_id).first()
        return BlogSerializer(blog).data if blog else None

    def live_likes(pipe: Any) -> None:
        likes.queue_like_states(pipe, [blog_id], viewer_id, counts=True)

    found = blog_cache().lookup(blog_id, load, piggyback=live_likes)
    if found.raw is None:
        raise BlogNotFound()
    blog = json.loads(found.raw)
    states = likes.read_like_states(found.extra, [blog_id], viewer_id, counts=True)
    blog["liked"], blog["is_liked"] = states[blog_id]
    return blog


def blog_exists(*, blog_id: int) -> None:
    """404 unless the blog exists (no author join: for likes and comments)."""
    if not Blog.objects.filter(pk=blog_id).exists():
        raise BlogNotFound()


def hot_blogs() -> QuerySet[Blog]:
    """Most liked first; ties newest first (the `blog_hot` index)."""
    return Blog.objects.select_related("user").order_by("-liked", "-id")


def blog_comments(*, blog_id: int) -> QuerySet[BlogComment]:
    blog_exists(blog_id=blog_id)
    return (
        BlogComment.objects.select_related("user")
        .filter(blog_id=blog_id, status=BlogComment.Status.VISIBLE)
        .order_by("id")
    )
