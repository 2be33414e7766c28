"""Users log in by SMS code (phone); staff also have a username and password for admin."""

from __future__ import annotations

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils.translation import gettext_lazy as _

NICK_NAME_MAX = 32
ICON_MAX = 255


class User(AbstractUser):
    """SMS users get username = phone; staff accounts may have no phone at all."""

    phone = models.CharField(_("phone"), max_length=11, unique=True, null=True, blank=True)
    nick_name = models.CharField(_("nick name"), max_length=NICK_NAME_MAX, blank=True)
    icon = models.CharField(_("avatar"), max_length=ICON_MAX, blank=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta(AbstractUser.Meta):
        swappable = "AUTH_USER_MODEL"
        db_table = "accounts_user"
        # django-stubs declare AbstractUser.Meta's names as str; Django's own are lazy too.
        verbose_name = _("user")  # type: ignore[assignment]
        verbose_name_plural = _("users")  # type: ignore[assignment]

    def __str__(self) -> str:
        return self.nick_name or self.username


class UserInfo(models.Model):
    """Profile data that public pages show; counters are kept by the follows app."""

    class Gender(models.IntegerChoices):
        UNSPECIFIED = 0, _("unspecified")
        MALE = 1, _("male")
        FEMALE = 2, _("female")

    user = models.OneToOneField(
        User,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="info",
        verbose_name=_("user"),
    )
    city = models.CharField(_("city"), max_length=64, blank=True)
    introduce = models.CharField(_("introduction"), max_length=128, blank=True)
    fans = models.PositiveIntegerField(_("followers"), default=0)
    followee = models.PositiveIntegerField(_("following"), default=0)
    gender = models.PositiveSmallIntegerField(
        _("gender"), choices=Gender.choices, default=Gender.UNSPECIFIED
    )
    birthday = models.DateField(_("birthday"), null=True, blank=True)
    credits = models.PositiveIntegerField(_("credits"), default=0)
    level = models.PositiveSmallIntegerField(_("level"), default=0)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("user info")
        verbose_name_plural = _("user info")

    def __str__(self) -> str:
        return f"info of user {self.user_id}"
