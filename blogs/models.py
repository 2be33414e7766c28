"""Blogs (shop visit notes), their comments and the ratings they give shops. Likers live
in Redis (see likes.py)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from toolkit import clock

STARS_MIN, STARS_MAX = 1, 5
# A review's optional sub-scores (1-5 stars each, shops.models.SUB_SCORES) beside its
# rating: the shop's average of each follows them as its score follows the ratings.


def _sub_score(verbose_name: Any) -> models.PositiveSmallIntegerField:
    return models.PositiveSmallIntegerField(
        verbose_name,
        null=True,
        blank=True,
        help_text=_("Stars, 1 to 5."),
        validators=[MinValueValidator(STARS_MIN), MaxValueValidator(STARS_MAX)],
    )


class Visibility(models.IntegerChoices):
    """A moderator hides a reported note or comment; hidden, it leaves every list."""

    VISIBLE = 0, _("visible")
    HIDDEN = 1, _("hidden")


class Blog(models.Model):
    Status = Visibility

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
    # A note about a shop may rate it; the author's newest visible rated note about a shop
    # is their rating of it (ShopRating), and the shop's score follows (blogs.reviews).
    rating = models.PositiveSmallIntegerField(
        _("rating"),
        null=True,
        blank=True,
        help_text=_("Stars, 1 to 5."),
        validators=[MinValueValidator(STARS_MIN), MaxValueValidator(STARS_MAX)],
    )
    taste = _sub_score(_("taste"))
    environment = _sub_score(_("environment"))
    service = _sub_score(_("service"))
    status = models.PositiveSmallIntegerField(
        _("status"), choices=Visibility.choices, default=Visibility.VISIBLE, db_default=0
    )
    liked = models.PositiveIntegerField(
        _("likes"), default=0, help_text=_("Follows the Redis like set.")
    )
    # The like script's counter value behind `liked`: a count is written only if it is
    # newer than the one stored, so racing or retried writes never make it drift.
    liked_version = models.PositiveBigIntegerField(_("likes version"), default=0, editable=False)
    # Readers' "helpful" votes on a review, kept as likes are (blogs.helpful): a set in
    # Redis, and this count, written only with a newer version than the one stored.
    helpful = models.PositiveIntegerField(
        _("helpful votes"), default=0, db_default=0, help_text=_("Follows the Redis vote set.")
    )
    helpful_version = models.PositiveBigIntegerField(
        _("helpful votes version"), default=0, db_default=0, editable=False
    )
    # "comments" is also the Comment model's plural: the count's own context keeps the two
    # apart in Chinese (评论数 here, 评论 there).
    comments = models.PositiveIntegerField(pgettext_lazy("a count", "comments"), default=0)
    # Moved with the Favourite rows, in their transaction (favourites.services).
    favourites = models.PositiveIntegerField(
        _("favourites"), default=0, db_default=0, editable=False
    )
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
    # Not a column: blogs.services.blog_delete sets it on the instance it deletes, so that
    # the receivers (which read it with getattr) need not count the reviews again.
    reviews_counted: bool

    class Meta:
        verbose_name = _("blog")
        verbose_name_plural = _("blogs")
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["user", "-created_at", "-id"], name="blog_user_newest"),
            models.Index(fields=["-liked", "-id"], name="blog_hot"),
            models.Index(fields=["pushed_at", "created_at"], name="blog_unpushed"),
            models.Index(fields=["shop", "status", "-created_at", "-id"], name="blog_shop_newest"),
            models.Index(fields=["shop", "status", "-liked", "-id"], name="blog_shop_liked"),
            models.Index(fields=["shop", "status", "-helpful", "-id"], name="blog_shop_helpful"),
            # The shop's distinct reviewers, counted from the index alone (blogs.reviews).
            models.Index(fields=["shop", "status", "user"], name="blog_shop_reviewers"),
        ]

    def __str__(self) -> str:
        return self.title


class BlogComment(models.Model):
    Status = Visibility

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


class ReviewReply(models.Model):
    """The shop's official reply to a review (a visible note about it with a rating): one
    per review, written and edited by any member of the shop's staff (blogs.replies);
    `user` is who wrote its current text. A moderator hides it like a comment."""

    Status = Visibility
    TEXT_MAX = 1000

    review = models.OneToOneField(
        Blog, on_delete=models.CASCADE, related_name="reply", verbose_name=_("review")
    )
    # The shop that replied: the review's shop when it was written. A review moved to
    # another shop loses its reply (blogs.services.blog_update).
    shop = models.ForeignKey(
        "shops.Shop", on_delete=models.CASCADE, related_name="+", verbose_name=_("shop")
    )
    # The shop's words outlive a member's account: the reply stays, without its writer.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("author"),
    )
    text = models.CharField(_("text"), max_length=TEXT_MAX)
    status = models.PositiveSmallIntegerField(
        _("status"), choices=Status.choices, default=Status.VISIBLE
    )
    created_at = models.DateTimeField(_("created at"), default=clock.now)
    updated_at = models.DateTimeField(_("updated at"), default=clock.now)

    class Meta:
        verbose_name = _("review reply")
        verbose_name_plural = _("review replies")
        ordering = ["-id"]
        indexes = [models.Index(fields=["shop", "-id"], name="reply_by_shop")]

    def __str__(self) -> str:
        return f"reply {self.pk} to review {self.review_id}"


class ShopRating(models.Model):
    """The rating that counts: one per user and shop, the stars of the user's newest
    visible rated note about the shop. The shop's score and histogram are counted from
    these rows (blogs.reviews), under the shop's row lock."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", verbose_name=_("user")
    )
    shop = models.ForeignKey(
        "shops.Shop", on_delete=models.CASCADE, related_name="ratings", verbose_name=_("shop")
    )
    blog = models.OneToOneField(
        Blog, on_delete=models.CASCADE, related_name="+", verbose_name=_("blog")
    )
    stars = models.PositiveSmallIntegerField(
        _("stars"), validators=[MinValueValidator(STARS_MIN), MaxValueValidator(STARS_MAX)]
    )
    # The same note's sub-scores: the shop's averages are counted from these rows too.
    taste = _sub_score(_("taste"))
    environment = _sub_score(_("environment"))
    service = _sub_score(_("service"))
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("shop rating")
        verbose_name_plural = _("shop ratings")
        constraints = [
            models.UniqueConstraint(fields=["shop", "user"], name="one_rating_per_user_and_shop")
        ]

    def __str__(self) -> str:
        return f"{self.stars} stars from user {self.user_id} for shop {self.shop_id}"


class Report(models.Model):
    """A user's report of a note, a comment or a shop's reply, for the moderators' queue
    (the admin). One open report per user and target: `open` is True while it waits and NULL once
    handled, and NULLs never collide in the unique index (the constraint that holds on
    MariaDB, which has no partial indexes)."""

    class Kind(models.TextChoices):
        BLOG = "blog", _("note")
        COMMENT = "comment", _("comment")
        REPLY = "reply", _("shop's reply")

    class Reason(models.TextChoices):
        SPAM = "spam", _("spam or advertising")
        ABUSE = "abuse", _("abuse or harassment")
        ILLEGAL = "illegal", _("illegal content")
        SEXUAL = "sexual", _("sexual content")
        FAKE = "fake", _("fake review")
        OTHER = "other", _("other")

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        HIDDEN = "hidden", _("target hidden")
        DISMISSED = "dismissed", _("dismissed, target kept")

    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("reporter"),
    )
    kind = models.CharField(_("kind"), max_length=8, choices=Kind.choices)
    target_id = models.BigIntegerField(_("target id"))
    reason = models.CharField(_("reason"), max_length=16, choices=Reason.choices)
    text = models.CharField(_("details"), max_length=500, blank=True)
    status = models.CharField(
        _("status"), max_length=16, choices=Status.choices, default=Status.OPEN
    )
    open = models.BooleanField(_("open"), null=True, default=True, editable=False)
    created_at = models.DateTimeField(_("created at"), default=clock.now)
    handled_at = models.DateTimeField(_("handled at"), null=True, blank=True)
    handled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("handled by"),
    )

    class Meta:
        verbose_name = _("report")
        verbose_name_plural = _("reports")
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["reporter", "kind", "target_id", "open"], name="one_open_report_per_target"
            )
        ]
        indexes = [
            models.Index(fields=["status", "-id"], name="report_queue"),
            models.Index(fields=["kind", "target_id", "status"], name="report_by_target"),
        ]

    def __str__(self) -> str:
        return f"report {self.pk} of {self.kind} {self.target_id}"
