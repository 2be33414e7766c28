"""Request validation and response shapes. Writable fields are declared one by one."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from accounts.serializers import PhoneSerializer, PublicUserSerializer
from accounts.tokens import mask_phone
from shops.errors import ShopNotFound
from shops.models import LATITUDE_LIMIT, Shop, ShopStaff
from shops.serializers import PRICE_MAX, HoursField, ShopSerializer
from toolkit.api import fields
from vouchers.serializers import VoucherWriteSerializer

from .models import EVIDENCE_MAX, PICTURE_MAX, OfferDraft, ShopChange, ShopClaim


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
            "id",
            "shop",
            "evidence",
            "picture",
            "status",
            "reason",
            "created_at",
            "decided_at",
        ]
        read_only_fields = fields


class ClaimStateSerializer(serializers.Serializer):
    """Whether the caller may claim the shop, and why not."""

    can_claim = serializers.BooleanField(
        help_text="A claim now would be taken: the shop has no owner and no claim of mine waits."
    )
    has_owner = serializers.BooleanField(help_text="Someone owns the shop (maybe me).")
    role = serializers.ChoiceField(
        ShopStaff.Role.choices, allow_null=True, help_text="My role at the shop; null: none."
    )
    claim = ClaimSerializer(
        allow_null=True, help_text="My newest claim of the shop, whatever its status; null: none."
    )


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


# A phone as customers dial it: digits, spaces and dashes, an optional leading +.
SHOP_PHONE_PATTERN = r"^\+?[0-9](?:[0-9 -]{3,17}[0-9])$"


class ShopProfileUpdateSerializer(serializers.Serializer):
    """What an owner may change. avg_price, phone, images and hours apply at once; name,
    address and the position (x and y together) wait for an operator's approval."""

    # Both x and y, or neither (validate() says so; the schema too).
    schema_one_of = [
        {"required": ["x", "y"]},
        {"not": {"anyOf": [{"required": ["x"]}, {"required": ["y"]}]}},
    ]

    avg_price = fields.IntegerField(
        min_value=0,
        max_value=PRICE_MAX,
        required=False,
        help_text="Average spend per person, yuan. At once.",
    )
    phone = fields.CharField(
        max_length=20,
        required=False,
        allow_blank=True,
        pattern=SHOP_PHONE_PATTERN,
        pattern_message=_("A phone number: digits, spaces and dashes, + first if any."),
        help_text="The shop's phone, as customers dial it; empty removes it. At once.",
    )
    images = serializers.ListField(
        child=fields.ImageUrlField(max_length=255),
        max_length=9,
        required=False,
        help_text="Pictures uploaded first (POST /api/uploads) or https URLs. At once.",
    )
    hours = HoursField(
        required=False,
        allow_null=True,
        help_text="Structured opening hours (see the shop's `hours`); null removes them. At once.",
    )
    name = fields.CharField(
        max_length=128, required=False, help_text="Applies once an operator approves it."
    )
    address = fields.CharField(
        max_length=255, required=False, help_text="Applies once an operator approves it."
    )
    x = fields.FloatField(
        min_value=-180,
        max_value=180,
        required=False,
        help_text="Longitude, with y. Applies once an operator approves it.",
    )
    y = fields.FloatField(
        min_value=-LATITUDE_LIMIT,
        max_value=LATITUDE_LIMIT,
        required=False,
        help_text="Latitude, with x. Applies once an operator approves it.",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if ("x" in attrs) != ("y" in attrs):
            message = gettext("Give both x (longitude) and y (latitude).")
            raise serializers.ValidationError({"x": [message]})
        return attrs


class ShopProposalSerializer(serializers.Serializer):
    """The fields a change would set: only those asked for."""

    name = serializers.CharField(read_only=True)
    address = serializers.CharField(read_only=True)
    x = serializers.FloatField(read_only=True)
    y = serializers.FloatField(read_only=True)


class ShopChangeSerializer(serializers.ModelSerializer):
    proposed = ShopProposalSerializer(source="fields", read_only=True)
    reason = serializers.CharField(read_only=True, help_text="Why it was rejected; else empty.")

    class Meta:
        model = ShopChange
        fields = ["id", "proposed", "status", "reason", "created_at", "decided_at"]
        read_only_fields = fields


class ShopProfileSerializer(ShopSerializer):
    """The shop as its owner sees it: the public answer, the change waiting for an
    operator and the latest decided one."""

    pending_change = ShopChangeSerializer(
        read_only=True,
        allow_null=True,
        help_text="Name, address or position waiting for an operator; null when none.",
    )
    last_decision = ShopChangeSerializer(
        read_only=True,
        allow_null=True,
        help_text="The latest approved or rejected change (a rejection with its reason); "
        "null when none.",
    )

    class Meta(ShopSerializer.Meta):
        fields = [*ShopSerializer.Meta.fields, "pending_change", "last_decision"]
        read_only_fields = fields


class OfferVoucherSerializer(VoucherWriteSerializer):
    """The voucher an offer proposes: the staff API's fields and rules (discount rule,
    sale window, stock, buckets), less the shop, which is the offer's."""

    class Meta(VoucherWriteSerializer.Meta):
        fields = [f for f in VoucherWriteSerializer.Meta.fields if f != "shop_id"]

    @classmethod
    def proposal(cls, data: object) -> dict:
        """`data` checked by the staff API's rules, as the JSON an offer keeps (raises
        the 400 of a ValidationError otherwise)."""
        serializer = cls(data=data)
        serializer.is_valid(raise_exception=True)
        return serializer.to_representation(serializer.validated_data)


class OfferSerializer(serializers.ModelSerializer):
    shop_id = serializers.IntegerField(read_only=True)
    voucher = OfferVoucherSerializer(
        source="fields", read_only=True, help_text="The proposed voucher."
    )
    voucher_id = serializers.IntegerField(
        read_only=True, allow_null=True, help_text="The voucher it was published as."
    )
    reason = serializers.CharField(read_only=True, help_text="Why it was sent back; else empty.")
    remaining = serializers.IntegerField(
        read_only=True,
        allow_null=True,
        default=None,
        help_text="A published flash sale's units left (live); null otherwise.",
    )

    class Meta:
        model = OfferDraft
        fields = [
            "id",
            "shop_id",
            "state",
            "voucher",
            "voucher_id",
            "reason",
            "remaining",
            "created_at",
            "updated_at",
            "submitted_at",
            "decided_at",
        ]
        read_only_fields = fields


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
