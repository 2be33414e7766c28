"""Voucher, order and checkout shapes. Writable fields are declared explicitly: never
`status`, an id, `stock` sold so far or anything a user could grant themselves.
Order ids are strings: they exceed 2^53."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.translation import gettext, gettext_lazy
from rest_framework import serializers

from shops.errors import ShopNotFound
from shops.models import Shop
from shops.serializers import city_field
from toolkit import clock
from toolkit.api import fields
from toolkit.api.scroll import ScrollQuerySerializer
from toolkit.money import MAX_FEN

from . import documents
from .coupons import discounts
from .models import ShopOrder, Voucher, VoucherOrder, WriteOff
from .sale.shard import placement

MAX_MONEY = MAX_FEN  # the admin's bound too (toolkit/money.py)
DISCOUNT_FIELDS = [
    "discount_type",
    "amount_condition",
    "discount_amount",
    "discount_rate",
    "max_discount",
]


class VoucherSerializer(serializers.ModelSerializer):
    shop_id = serializers.IntegerField(read_only=True)
    status = serializers.SerializerMethodField(help_text="Real-time activity status.")

    class Meta:
        model = Voucher
        fields = [
            "id",
            "shop_id",
            "title",
            "sub_title",
            "rules",
            "pay_value",
            "actual_value",
            "type",
            *DISCOUNT_FIELDS,
            "per_user_limit",
            "valid_days",
            "stock",
            "begin_time",
            "end_time",
            "challenge",
            "status",
        ]
        read_only_fields = fields

    def get_status(self, voucher: Voucher) -> str:
        return voucher.status_at(clock.now())


class VoucherListItemSerializer(VoucherSerializer):
    """Documentation shape of list items: adds `remaining`, the units left (a flash sale's
    live Redis stock; null: unlimited, or a sale not loaded yet)."""

    remaining = serializers.IntegerField(allow_null=True, read_only=True)

    class Meta(VoucherSerializer.Meta):
        fields = [*VoucherSerializer.Meta.fields, "remaining"]
        read_only_fields = fields


class VoucherCardSerializer(VoucherListItemSerializer):
    """Documentation shape of a voucher as readers get it (a shop's vouchers, the sales
    on now or coming): with the reader's `saved` marker, read live."""

    saved = serializers.BooleanField(
        read_only=True,
        help_text="Whether the caller saved the voucher to their favourites (false when "
        "not signed in).",
    )

    class Meta(VoucherListItemSerializer.Meta):
        fields = [*VoucherListItemSerializer.Meta.fields, "saved"]
        read_only_fields = fields


class OrderCountsSerializer(serializers.Serializer):
    claimed = serializers.IntegerField(help_text="Every order ever taken.")
    unpaid = serializers.IntegerField()
    paid = serializers.IntegerField(help_text="Paid and not used (expired included).")
    used = serializers.IntegerField()
    refunded = serializers.IntegerField()
    cancelled = serializers.IntegerField()


class VoucherStaffSerializer(VoucherListItemSerializer):
    """What operators see: the voucher, units left, and its orders counted by status."""

    counts = OrderCountsSerializer(read_only=True)
    buckets = serializers.SerializerMethodField(
        help_text="Shards a flash sale's stock is split across (1: its own shard only)."
    )

    class Meta(VoucherListItemSerializer.Meta):
        fields = [*VoucherListItemSerializer.Meta.fields, "counts", "buckets"]
        read_only_fields = fields

    def get_buckets(self, voucher: Voucher) -> int:
        return len(placement(voucher.id, voucher.sale_shards))


class VoucherWriteSerializer(fields.StrictModelSerializer):
    shop_id = fields.PrimaryKeyRelatedField(
        source="shop", queryset=Shop.objects.all(), missing=ShopNotFound
    )
    pay_value = fields.IntegerField(min_value=0, max_value=MAX_MONEY)
    actual_value = fields.IntegerField(min_value=0, max_value=MAX_MONEY)
    stock = fields.IntegerField(min_value=0, max_value=10_000_000, required=False, allow_null=True)
    valid_days = fields.IntegerField(min_value=1, max_value=3650, required=False)
    amount_condition = fields.IntegerField(min_value=0, max_value=MAX_MONEY, required=False)
    discount_amount = fields.IntegerField(
        min_value=1, max_value=MAX_MONEY, required=False, allow_null=True
    )
    discount_rate = fields.IntegerField(min_value=1, max_value=99, required=False, allow_null=True)
    max_discount = fields.IntegerField(
        min_value=1, max_value=MAX_MONEY, required=False, allow_null=True
    )
    per_user_limit = fields.IntegerField(min_value=1, max_value=100, required=False)
    # Sale times from 2000 to 2099 (the field's pattern): far-off years are typos, and
    # before 1901 local time zones have second offsets that ISO-8601 clients cannot read.
    begin_time = fields.DateTimeField(required=False, allow_null=True)
    end_time = fields.DateTimeField(required=False, allow_null=True)
    buckets = fields.IntegerField(
        min_value=1,
        max_value=64,
        required=False,
        help_text=(
            "A flash sale's stock split across this many shards, so one hot sale runs on "
            "several Redis masters (at most SECKILL_SHARDS). Chosen at creation: default 1, "
            "or SECKILL_AUTO_BUCKETS from a stock of SECKILL_BUCKETS_FROM_STOCK; a change "
            "later answers 409 buckets_fixed."
        ),
    )

    class Meta:
        model = Voucher
        fields = [
            "shop_id",
            "title",
            "sub_title",
            "rules",
            "pay_value",
            "actual_value",
            "type",
            *DISCOUNT_FIELDS,
            "per_user_limit",
            "stock",
            "begin_time",
            "end_time",
            "valid_days",
            "challenge",
            "buckets",
        ]

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        merged = {**self._current(), **attrs}  # a PATCH is judged with what it leaves alone
        errors: dict[str, Any] = discounts.rule_errors(
            discount_type=merged.get("discount_type", discounts.CASH),
            amount_condition=merged.get("amount_condition", 0),
            discount_amount=merged.get("discount_amount"),
            discount_rate=merged.get("discount_rate"),
            max_discount=merged.get("max_discount"),
        )
        if merged.get("type") == Voucher.Kind.SECKILL:
            begin, end = merged.get("begin_time"), merged.get("end_time")
            if begin is None or end is None:
                errors["begin_time"] = gettext("A flash sale needs begin_time and end_time.")
            elif begin >= end:
                errors["end_time"] = gettext("end_time must follow begin_time.")
            if merged.get("stock") is None:
                errors["stock"] = gettext("A flash sale needs stock.")
            if merged.get("per_user_limit", 1) != 1:
                errors["per_user_limit"] = gettext("A flash sale sells one unit per user.")
            if attrs.get("buckets", 1) > settings.SECKILL_SHARDS:
                errors["buckets"] = gettext("At most %(shards)d (SECKILL_SHARDS).") % {
                    "shards": settings.SECKILL_SHARDS
                }
        elif attrs.get("buckets", 1) != 1:
            errors["buckets"] = gettext("Only a flash sale is split into buckets.")
        if errors:
            raise serializers.ValidationError({f: [m] for f, m in errors.items()})
        return attrs

    def _current(self) -> dict[str, Any]:
        voucher = self.instance
        if voucher is None:
            return {}
        names = ["type", "begin_time", "end_time", "stock", "per_user_limit", *DISCOUNT_FIELDS]
        return {name: getattr(voucher, name) for name in names}


class ChallengeSerializer(serializers.Serializer):
    """A sale's challenge: answer the question in `image` in the grab's `challenge`."""

    id = serializers.CharField(help_text="The challenge's id, sent back with the answer.")
    image = serializers.CharField(help_text="The question, a PNG as a data URL.")
    expires_in = serializers.IntegerField(help_text="Seconds it can be answered in.")


class ChallengeAnswerSerializer(serializers.Serializer):
    id = fields.CharField(max_length=64)
    answer = fields.CharField(
        max_length=8, help_text="The number the picture asks for: a whole number, 6 digits at most."
    )


class SeckillRequestSerializer(serializers.Serializer):
    """A grab's body: empty, or the answer to the sale's challenge when it has one."""

    challenge = ChallengeAnswerSerializer(required=False)


class OrderIdSerializer(serializers.Serializer):
    order_id = serializers.CharField(help_text="64-bit id, as a string.")


class OrderSerializer(serializers.Serializer):
    """An order as its owner sees it. `status` is `expired` for a paid coupon past its
    validity, and `pending` while a flash-sale order waits to be persisted."""

    id = serializers.CharField()  # str() of the int id
    voucher_id = serializers.IntegerField()
    status = serializers.SerializerMethodField()
    created_at = serializers.DateTimeField(allow_null=True)
    paid_at = serializers.DateTimeField(allow_null=True)
    expires_at = serializers.DateTimeField(allow_null=True)
    used_at = serializers.DateTimeField(allow_null=True)
    cancelled_at = serializers.DateTimeField(allow_null=True)
    refunded_at = serializers.DateTimeField(allow_null=True)

    def get_status(self, order: VoucherOrder) -> str:
        if order.status == VoucherOrder.Status.PAID and order.is_expired(clock.now()):
            return "expired"
        return order.status


class ShopNameSerializer(serializers.Serializer):
    """The shop a coupon or bill is from, by name: cards of the same title tell apart."""

    id = serializers.IntegerField()
    name = serializers.CharField()


class MyVoucherSerializer(OrderSerializer):
    voucher = VoucherSerializer(read_only=True)
    shop = ShopNameSerializer(source="voucher.shop", read_only=True)


class OrderDetailSerializer(MyVoucherSerializer):
    """One order for its owner: with the code shop staff redeem it by, while it counts."""

    redeem_code = serializers.SerializerMethodField(
        help_text="12 digits, for a paid or used coupon; null otherwise."
    )

    def get_redeem_code(self, order: VoucherOrder) -> str | None:
        live = order.status in (VoucherOrder.Status.PAID, VoucherOrder.Status.USED)
        return order.redeem_code if live else None


class MyVouchersPageSerializer(serializers.Serializer):
    results = MyVoucherSerializer(many=True)
    last_id = serializers.CharField(allow_null=True, help_text="Pass back to get the next page.")


class CouponOptionSerializer(MyVoucherSerializer):
    discount = serializers.IntegerField(help_text="Fen off the amount asked about.")
    reason = serializers.CharField(allow_null=True, help_text="Why it is unusable.")

    def to_representation(self, option: Any) -> dict[str, Any]:
        """`option` is a coupons.selectors.CouponOption: the coupon, plus its verdict."""
        data = dict(MyVoucherSerializer(option.coupon).data)
        data["discount"], data["reason"] = option.discount, option.reason
        return data


class UsableCouponsSerializer(serializers.Serializer):
    usable = CouponOptionSerializer(many=True, help_text="Best first.")
    unusable = CouponOptionSerializer(many=True)


class ShopOrderCreateSerializer(serializers.Serializer):
    shop_id = fields.PrimaryKeyRelatedField(queryset=Shop.objects.all(), missing=ShopNotFound)
    amount = fields.IntegerField(min_value=1, max_value=MAX_MONEY, help_text="Fen.")
    coupon_id = fields.IdTextField(
        required=False, allow_null=True, help_text="A voucher order id (a string)."
    )


class ShopOrderSerializer(serializers.ModelSerializer):
    id = serializers.CharField()
    shop_id = serializers.IntegerField()
    shop = ShopNameSerializer(read_only=True)
    coupon_id = serializers.CharField(allow_null=True)

    class Meta:
        model = ShopOrder
        fields = [
            "id", "shop_id", "shop", "amount", "discount", "payable", "coupon_id", "status",
            "created_at", "refunded_at",
        ]  # fmt: skip
        read_only_fields = fields


class ShopOrdersPageSerializer(serializers.Serializer):
    results = ShopOrderSerializer(many=True)
    last_id = serializers.CharField(allow_null=True, help_text="Pass back to get the next page.")


REDEEM_CODE = "^[0-9]{12}$"


class RedemptionCreateSerializer(serializers.Serializer):
    code = fields.CharField(
        pattern=REDEEM_CODE,
        pattern_message=gettext_lazy("12 digits."),
        help_text="The coupon's 12-digit code.",
    )
    amount = fields.IntegerField(
        min_value=1,
        max_value=MAX_MONEY,
        required=False,
        help_text="The bill in fen: needed by coupons with a threshold or a percentage.",
    )


class WriteOffSerializer(serializers.ModelSerializer):
    order_id = serializers.CharField()
    voucher_id = serializers.IntegerField()
    shop_id = serializers.IntegerField()
    redeemed_by = serializers.IntegerField(source="redeemed_by_id")

    class Meta:
        model = WriteOff
        fields = [
            "id",
            "order_id",
            "voucher_id",
            "shop_id",
            "discount",
            "redeemed_at",
            "redeemed_by",
            "kind",
            "reversed_at",
        ]
        read_only_fields = fields


# Query strings (toolkit.api.queries): the schema shows these fields as parameters.
VOUCHER_STATUSES = tuple(Voucher.Status.values)
ACTIVITY_TABS = ("seizing", "upcoming")
MY_VOUCHER_TABS = tuple(documents.IN_TAB)


class VoucherListQuerySerializer(serializers.Serializer):
    shop_id = fields.IdField(required=False)
    status = fields.ChoiceField(VOUCHER_STATUSES, required=False)


class ActivitiesQuerySerializer(serializers.Serializer):
    tab = fields.ChoiceField(ACTIVITY_TABS, default="seizing")
    city = city_field()


class MyVouchersQuerySerializer(ScrollQuerySerializer):
    status = fields.ChoiceField(MY_VOUCHER_TABS, default="unused")


class UsableCouponsQuerySerializer(serializers.Serializer):
    shop_id = fields.IdField()
    amount = fields.IntegerField(min_value=1, max_value=MAX_MONEY, help_text="The bill, in fen.")


class WriteOffDayQuerySerializer(serializers.Serializer):
    date = fields.DateField(required=False, help_text="A local day; today when absent.")
