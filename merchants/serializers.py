"""Request validation and response shapes. Writable fields are declared one by one."""

from __future__ import annotations

from rest_framework import serializers

from accounts.serializers import PhoneSerializer, PublicUserSerializer
from accounts.tokens import mask_phone
from dianping.api import fields
from shops.errors import ShopNotFound
from shops.models import Shop, ShopStaff
from vouchers.serializers import VoucherWriteSerializer

from .models import EVIDENCE_MAX, PICTURE_MAX, OfferDraft, ShopClaim


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
            "id", "shop_id", "state", "voucher", "voucher_id", "reason", "remaining",
            "created_at", "updated_at", "submitted_at", "decided_at",
        ]  # fmt: skip
        read_only_fields = fields
