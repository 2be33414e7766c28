"""Request validation and response shapes. Writable fields are declared one by one."""

from __future__ import annotations

from rest_framework import serializers

from accounts.serializers import PhoneSerializer, PublicUserSerializer
from accounts.tokens import mask_phone
from dianping.api import fields
from shops.errors import ShopNotFound
from shops.models import Shop, ShopStaff

from .models import EVIDENCE_MAX, PICTURE_MAX, ShopClaim


class ClaimCreateSerializer(serializers.Serializer):
    shop_id = fields.ExistingIdField(queryset=Shop.objects.all(), missing=ShopNotFound)
    evidence = fields.CharField(
        max_length=EVIDENCE_MAX,
        multiline=True,
        help_text="Why you run the shop: your role, how an operator can check it.",
    )
    picture = fields.ImageUrlField(
        max_length=PICTURE_MAX,
        required=False,
        help_text="A picture uploaded first (POST /api/uploads): a licence, the shop front.",
    )


class ClaimShopSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    name = serializers.CharField(read_only=True)


class ClaimSerializer(serializers.ModelSerializer):
    shop = ClaimShopSerializer(read_only=True)
    reason = serializers.CharField(read_only=True, help_text="Why it was rejected; else empty.")

    class Meta:
        model = ShopClaim
        fields = [
            "id", "shop", "evidence", "picture", "status", "reason", "created_at", "decided_at",
        ]  # fmt: skip
        read_only_fields = fields


class MyShopSerializer(serializers.ModelSerializer):
    """A shop the caller runs, as a membership: the shop's id and name, and the caller's
    role there."""

    id = serializers.IntegerField(source="shop.id", read_only=True)
    name = serializers.CharField(source="shop.name", read_only=True)
    area = serializers.CharField(source="shop.area", read_only=True)
    address = serializers.CharField(source="shop.address", read_only=True)
    since = serializers.DateTimeField(source="created_at", read_only=True)

    class Meta:
        model = ShopStaff
        fields = ["id", "name", "area", "address", "role", "since"]
        read_only_fields = fields


class StaffMemberSerializer(serializers.ModelSerializer):
    user = PublicUserSerializer(read_only=True)
    phone = serializers.SerializerMethodField(help_text="Masked: 138****0000.")
    since = serializers.DateTimeField(source="created_at", read_only=True)

    class Meta:
        model = ShopStaff
        fields = ["user", "phone", "role", "since"]
        read_only_fields = fields

    def get_phone(self, membership: ShopStaff) -> str | None:
        return mask_phone(membership.user.phone)


class StaffAddSerializer(PhoneSerializer):
    """The phone of the account to add as a clerk."""


class DashboardQuerySerializer(serializers.Serializer):
    days = fields.ChoiceField(
        choices=[7, 30], required=False, default=7, help_text="The window: 7 or 30 local days."
    )


class DashboardDaySerializer(serializers.Serializer):
    date = serializers.DateField(help_text="A local day (TIME_ZONE).")
    uv = serializers.IntegerField(help_text="Unique visitors of the shop's page that day.")
    pv = serializers.IntegerField(help_text="Views of the shop's page that day.")
    claims = serializers.IntegerField(help_text="Coupons of the shop's vouchers taken that day.")
    sales = serializers.IntegerField(help_text="Of those, flash-sale orders.")
    redemptions = serializers.IntegerField(help_text="Coupons written off that day (standing).")


class DashboardTotalsSerializer(serializers.Serializer):
    uv = serializers.IntegerField(help_text="Unique visitors over the window (each once).")
    pv = serializers.IntegerField()
    claims = serializers.IntegerField()
    sales = serializers.IntegerField()
    redemptions = serializers.IntegerField()


class DashboardRatingsSerializer(serializers.Serializer):
    score = serializers.IntegerField(help_text="The shop's rating x10: 0..50 (0 when unrated).")
    histogram = serializers.ListField(
        child=serializers.IntegerField(), help_text="Ratings that count, of 1 to 5 stars."
    )


class DashboardWeekSerializer(serializers.Serializer):
    week_start = serializers.DateField()
    week_end = serializers.DateField()
    average = serializers.FloatField(
        allow_null=True, help_text="Mean stars of the week's reviews; null without any."
    )
    reviews = serializers.IntegerField()


class AwaitingReviewSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    title = serializers.CharField()
    rating = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    user = PublicUserSerializer()


class DashboardSerializer(serializers.Serializer):
    shop = ClaimShopSerializer()
    days = serializers.IntegerField()
    date_from = serializers.DateField()
    date_to = serializers.DateField()
    totals = DashboardTotalsSerializer()
    by_day = DashboardDaySerializer(many=True, help_text="Oldest first.")
    ratings = DashboardRatingsSerializer()
    rating_trend = DashboardWeekSerializer(
        many=True, help_text="The last 8 weeks of 7 days (the last ends today), oldest first."
    )
    awaiting_reply = AwaitingReviewSerializer(
        many=True, help_text="The newest 10 reviews without the shop's reply."
    )
    awaiting_reply_count = serializers.IntegerField()
