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


def blog_detail(*, blog_id: int) -> dict[str, Any]:
    """A blog as the API shows it, with its author, from the blog cache (a database read
    only on a miss). Its `liked` is as of caching: callers overlay the live count."""
    from .serializers import BlogSerializer  # the cached value is the API's own shape

    def load() -> dict[str, Any] | None:
        blog = Blog.objects.select_related("user").filter(pk=blog_id).first()
        return BlogSerializer(blog).data if blog else None

    raw = blog_cache().get(blog_id, load)
    if raw is None:
        raise BlogNotFound()
    return json.loads(raw)


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
