"""Blogs (shop visit notes) and their comments. Likers live in Redis (see likes.py)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from dianping import clock


class Blog(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="blogs",
        verbose_name=_("author"),
    )
    shop = models.ForeignKey(
        "shops.Shop",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="blogs",
        verbose_name=_("shop"),
    )
    title = models.CharField(_("title"), max_length=128)
    images = models.JSONField(
        _("images"), default=list, blank=True, help_text=_("List of image URLs.")
    )
    content = models.TextField(_("content"), max_length=5000)
    liked = models.PositiveIntegerField(
        _("likes"), default=0, help_text=_("Follows the Redis like set.")
    )
    # The like script's counter value behind `liked`: a count is written only if it is
    # newer than the one stored, so racing or retried writes never make it drift.
    liked_version = models.PositiveBigIntegerField(_("likes version"), default=0, editable=False)
    comments = models.PositiveIntegerField(_("comments"), default=0)
    created_at = models.DateTimeField(_("created at"), default=clock.now, db_index=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)
    # Set when the push to the followers' feeds finished; a blog left without it (its
    # push was never enqueued, or gave up) is pushed again by a periodic sweep, which
    # notes when it last did so, to retry each blog at most once per interval.
    pushed_at = models.DateTimeField(_("pushed at"), null=True, blank=True, editable=False)
    push_retried_at = models.DateTimeField(
        _("push retried at"), null=True, blank=True, editable=False
    )
    # Not pushed at all: its author had more than FEED_PUSH_MAX_FOLLOWERS followers when
    # it was published, so followers' feeds pull it at read time (seed 000 §3, 推拉结合).
    pulled = models.BooleanField(_("pulled by readers"), default=False, editable=False)

    class Meta:
        verbose_name = _("blog")
        verbose_name_plural = _("blogs")
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
        VISIBLE = 0, _("visible")
        HIDDEN = 1, _("hidden")

    blog = models.ForeignKey(
        Blog, on_delete=models.CASCADE, related_name="comment_set", verbose_name=_("blog")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("commenter"),
    )
    parent = models.ForeignKey(
        "self",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="replies",
        verbose_name=_("reply to"),
    )
    content = models.CharField(_("content"), max_length=1000)
    liked = models.PositiveIntegerField(_("likes"), default=0)
    status = models.PositiveSmallIntegerField(
        _("status"), choices=Status.choices, default=Status.VISIBLE
    )
    created_at = models.DateTimeField(_("created at"), default=clock.now)

    class Meta:
        verbose_name = _("comment")
        verbose_name_plural = _("comments")
        ordering = ["id"]
        indexes = [models.Index(fields=["blog", "id"], name="comment_by_blog")]

    def __str__(self) -> str:
        return f"comment {self.pk} on blog {self.blog_id}"
