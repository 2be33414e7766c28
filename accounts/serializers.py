"""Request validation and response shapes. Writable fields are declared one by one."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from django.utils.translation import gettext, gettext_lazy
from rest_framework import serializers

from toolkit import clock
from toolkit.api import fields
from toolkit.validation import PAST_DATE_PATTERN

from .models import ICON_MAX, NICK_NAME_MAX, User, UserInfo
from .tokens import mask_phone

PHONE_PATTERN = "^1[3-9][0-9]{9}$"  # a mainland mobile number
PHONE_RE = re.compile(PHONE_PATTERN, re.ASCII)


class PhoneSerializer(serializers.Serializer):
    phone = fields.CharField(
        pattern=PHONE_PATTERN,
        pattern_message=gettext_lazy("Enter a mainland mobile number: 11 digits from 13-19."),
    )


class LoginSerializer(PhoneSerializer):
    code = fields.CharField(
        pattern="^[0-9]{6}$", pattern_message=gettext_lazy("The code is 6 digits.")
    )


class PublicUserSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    nick_name = serializers.CharField(read_only=True)
    icon = serializers.CharField(read_only=True)


class LoginResponseSerializer(serializers.Serializer):
    token = serializers.CharField()
    user = PublicUserSerializer()


class CodeSentSerializer(serializers.Serializer):
    expires_in = serializers.IntegerField(help_text="Seconds the code stays valid.")


class MeSerializer(PublicUserSerializer):
    phone = serializers.SerializerMethodField(help_text="The caller's own phone, masked.")

    def get_phone(self, user: User) -> str | None:
        return mask_phone(user.phone)


class ProfileUpdateSerializer(serializers.Serializer):
    nick_name = fields.CharField(max_length=NICK_NAME_MAX, required=False)
    icon = fields.ImageUrlField(
        max_length=ICON_MAX,
        required=False,
        allow_blank=True,
        help_text="A picture uploaded here, or https; empty for none.",
    )


class UserInfoSerializer(serializers.ModelSerializer):
    # The choice's name, not its label: labels are translated for the admin, while the
    # API answers the same value in every language.
    gender = serializers.SerializerMethodField()

    class Meta:
        model = UserInfo
        fields = [
            "user_id",
            "city",
            "introduce",
            "fans",
            "followee",
            "gender",
            "birthday",
            "credits",
            "level",
        ]
        read_only_fields = fields

    def get_gender(self, info: UserInfo) -> str:
        return UserInfo.Gender(info.gender).name.lower()


GENDERS = tuple(g.name.lower() for g in UserInfo.Gender)
CITY_MAX = UserInfo._meta.get_field("city").max_length
INTRODUCE_MAX = UserInfo._meta.get_field("introduce").max_length


class BirthdayField(fields.CharField):
    """A day from 1900-01-01 up to today (the server's TIME_ZONE), YYYY-MM-DD."""

    def __init__(self, **kwargs: Any) -> None:
        message = gettext_lazy("Use YYYY-MM-DD, a day from 1900-01-01 up to today.")
        super().__init__(pattern=PAST_DATE_PATTERN, pattern_message=message, **kwargs)

    # A text field whose value is a date: DRF allows it, CharField's stub says str.
    def to_internal_value(self, data: object) -> date:  # type: ignore[override]
        day = date.fromisoformat(super().to_internal_value(data))
        if day > clock.today():
            raise serializers.ValidationError(gettext("A birthday cannot be in the future."))
        return day


class UserInfoUpdateSerializer(serializers.Serializer):
    """The profile fields its owner may change; counters, credits and level are ours."""

    city = fields.CharField(max_length=CITY_MAX, required=False, allow_blank=True)
    introduce = fields.CharField(
        max_length=INTRODUCE_MAX, multiline=True, required=False, allow_blank=True
    )
    gender = fields.ChoiceField(GENDERS, required=False)
    birthday = BirthdayField(required=False, allow_null=True, help_text="null clears it.")

    def validate_gender(self, value: str) -> int:
        return int(UserInfo.Gender[value.upper()])
