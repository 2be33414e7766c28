"""Who follows whom. The Redis set per user (keys.follows) mirrors these rows."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from toolkit import clock


class Follow(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="following",
        verbose_name=_("follower"),
    )
    followed = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="followers",
        verbose_name=_("followed user"),
    )
    created_at = models.DateTimeField(_("followed at"), default=clock.now)

    class Meta:
        verbose_name = _("follow")
        verbose_name_plural = _("follows")
        constraints = [
            models.UniqueConstraint(fields=["user", "followed"], name="follow_once"),
            models.CheckConstraint(
                condition=~models.Q(user=models.F("followed")), name="follow_not_self"
            ),
        ]
        indexes = [
            models.Index(fields=["followed", "user"], name="follow_by_followed"),
            # The followers and following lists: newest follow first, scrolled by id.
            models.Index(fields=["followed", "-id"], name="follow_followers_newest"),
            models.Index(fields=["user", "-id"], name="follow_following_newest"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} follows {self.followed_id}"
