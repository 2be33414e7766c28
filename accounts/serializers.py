"""Request validation and response shapes. Writable fields are declared one by one."""

from __future__ import annotations

import re

from django.utils.translation import gettext
from rest_framework import serializers

from .models import ICON_MAX, NICK_NAME_MAX, User, UserInfo

PHONE_RE = re.compile(r"1[3-9][0-9]{9}")  # mainland mobile; used with fullmatch
_CONTROL_CHARS = re.compile(r"[\x00-\x1f\x7f]")
_ICON_RE = re.compile(r"(https?://|/)[^\s]*")


def validate_phone(value: str) -> str:
    if not PHONE_RE.fullmatch(value):
        raise serializers.ValidationError(
            gettext("Enter a mainland mobile number: 11 digits from 13-19.")
        )
    return value


class PhoneSerializer(serializers.Serializer):
    phone = serializers.CharField(max_length=11, validators=[validate_phone])


class LoginSerializer(PhoneSerializer):
    code = serializers.RegexField(r"^[0-9]{6}\Z", max_length=6)


class PublicUserSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    nick_name = serializers.CharField(read_only=True)
    icon = serializers.CharField(read_only=True)


class LoginResponseSerializer(serializers.Serializer):
    token = serializers.CharField()
    user = PublicUserSerializer()


class CodeSentSerializer(serializers.Serializer):
    expires_in = serializers.IntegerField(help_text="Seconds the code stays valid.")


def mask_phone(phone: str | None) -> str | None:
    """138****0000: enough for the owner to recognise it, useless to anyone else."""
    return f"{phone[:3]}****{phone[-4:]}" if phone else None


class MeSerializer(PublicUserSerializer):
    phone = serializers.SerializerMethodField(help_text="The caller's own phone, masked.")

    def get_phone(self, user: User) -> str | None:
        return mask_phone(user.phone)


class ProfileUpdateSerializer(serializers.Serializer):
    nick_name = serializers.CharField(min_length=1, max_length=NICK_NAME_MAX, required=False)
    icon = serializers.CharField(
        max_length=ICON_MAX, required=False, allow_blank=True, trim_whitespace=True
    )

    def validate_nick_name(self, value: str) -> str:
        if _CONTROL_CHARS.search(value):
            raise serializers.ValidationError(gettext("Control characters are not allowed."))
        return value

    def validate_icon(self, value: str) -> str:
        if value and not _ICON_RE.fullmatch(value):
            raise serializers.ValidationError(
                gettext("Use an http(s) URL or a path starting with /.")
            )
        return value


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
