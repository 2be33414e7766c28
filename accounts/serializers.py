"""Request validation and response shapes. Writable fields are declared one by one."""

from __future__ import annotations

import re

from django.utils.translation import gettext_lazy
from rest_framework import serializers

from dianping.api import fields

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
