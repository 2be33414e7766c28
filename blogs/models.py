"""Blogs (shop visit notes) and their comments. Likers live in Redis (see likes.py)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from dianping import clock


class Blog(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="blogs"
    )
    shop = models.ForeignKey(
        "shops.Shop", on_delete=models.SET_NULL, null=True, blank=True, related_name="blogs"
    )
    title = models.CharField(max_length=128)
    images = models.JSONField(default=list, blank=True, help_text="List of image URLs.")
    content = models.TextField(max_length=5000)
    liked = models.PositiveIntegerField(default=0, help_text="Follows the Redis like set.")
    # The like script's counter value behind `liked`: a count is written only if it is
    # newer than the one stored, so racing or retried writes never make it drift.
    liked_version = models.PositiveBigIntegerField(default=0, editable=False)
    comments = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=clock.now, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Set when the push to the followers' feeds finished; a blog left without it (its
    # push was never enqueued, or gave up) is pushed again by a periodic sweep, which
    # notes when it last did so, to retry each blog at most once per interval.
    pushed_at = models.DateTimeField(null=True, blank=True, editable=False)
    push_retried_at = models.DateTimeField(null=True, blank=True, editable=False)
    # Not pushed at all: its author had more than FEED_PUSH_MAX_FOLLOWERS followers when
    # it was published, so followers' feeds pull it at read time (seed 000 §3, 推拉结合).
    pulled = models.BooleanField(default=False, editable=False)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["user", "-created_at", "-id"], name="blog_user_newest"),
            models.Index(fields=["-liked", "-id"], name="blog_hot"),
            models.Index(fields=["pushed_at", "created_at"], name="blog_unpushed"),
        ]

    def __str__(self) -> str:
        return self.title


class BlogComment(models.Model):
    class Status(models.IntegerChoices):
        VISIBLE = 0, "visible"
        HIDDEN = 1, "hidden"

    blog = models.ForeignKey(Blog, on_delete=models.CASCADE, related_name="comment_set")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    parent = models.ForeignKey(
        "self", on_delete=models.CASCADE, null=True, blank=True, related_name="replies"
    )
    content = models.CharField(max_length=1000)
    liked = models.PositiveIntegerField(default=0)
    status = models.PositiveSmallIntegerField(choices=Status.choices, default=Status.VISIBLE)
    created_at = models.DateTimeField(default=clock.now)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["blog", "id"], name="comment_by_blog")]

    def __str__(self) -> str:
        return f"comment {self.pk} on blog {self.blog_id}"
