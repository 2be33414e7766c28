"""Blog reads that hit the database."""

from __future__ import annotations

from django.db.models import QuerySet

from .errors import BlogNotFound
from .models import Blog, BlogComment


def blog_get(*, blog_id: int) -> Blog:
    blog = Blog.objects.select_related("user").filter(pk=blog_id).first()
    if blog is None:
        raise BlogNotFound()
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
