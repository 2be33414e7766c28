"""Users log in by SMS code (phone); staff also have a username and password for admin."""

from __future__ import annotations

from django.contrib.auth.models import AbstractUser
from django.db import models

NICK_NAME_MAX = 32
ICON_MAX = 255


class User(AbstractUser):
    """SMS users get username = phone; staff accounts may have no phone at all."""

    phone = models.CharField(max_length=11, unique=True, null=True, blank=True)
    nick_name = models.CharField(max_length=NICK_NAME_MAX, blank=True)
    icon = models.CharField(max_length=ICON_MAX, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta(AbstractUser.Meta):
        swappable = "AUTH_USER_MODEL"
        db_table = "accounts_user"

    def __str__(self) -> str:
        return self.nick_name or self.username


class UserInfo(models.Model):
    """Profile data that public pages show; counters are kept by the follows app."""

    class Gender(models.IntegerChoices):
        UNSPECIFIED = 0, "unspecified"
        MALE = 1, "male"
        FEMALE = 2, "female"

    user = models.OneToOneField(
        User, on_delete=models.CASCADE, primary_key=True, related_name="info"
    )
    city = models.CharField(max_length=64, blank=True)
    introduce = models.CharField(max_length=128, blank=True)
    fans = models.PositiveIntegerField(default=0)
    followee = models.PositiveIntegerField(default=0)
    gender = models.PositiveSmallIntegerField(choices=Gender.choices, default=Gender.UNSPECIFIED)
    birthday = models.DateField(null=True, blank=True)
    credits = models.PositiveIntegerField(default=0)
    level = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "user info"
        verbose_name_plural = "user info"

    def __str__(self) -> str:
        return f"info of user {self.user_id}"
