"""Voucher shapes. Writable fields are declared explicitly: never `status` or the id."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from dianping import clock
from shops.models import Shop

from .models import Voucher


class VoucherSerializer(serializers.ModelSerializer):
    shop_id = serializers.IntegerField(read_only=True)
    status = serializers.SerializerMethodField(help_text="Real-time activity status.")

    class Meta:
        model = Voucher
        fields = [
            "id", "shop_id", "title", "sub_title", "rules", "pay_value", "actual_value", "type",
            "valid_days", "stock", "begin_time", "end_time", "status",
        ]  # fmt: skip
        read_only_fields = fields

    def get_status(self, voucher: Voucher) -> str:
        return voucher.status_at(clock.now())


class VoucherListItemSerializer(VoucherSerializer):
    """Documentation shape of list items: adds `remaining`, the live Redis stock."""

    remaining = serializers.IntegerField(allow_null=True, read_only=True)

    class Meta(VoucherSerializer.Meta):
        fields = [*VoucherSerializer.Meta.fields, "remaining"]
        read_only_fields = fields


class VoucherWriteSerializer(serializers.ModelSerializer):
    shop_id = serializers.PrimaryKeyRelatedField(source="shop", queryset=Shop.objects.all())
    pay_value = serializers.IntegerField(min_value=0, max_value=100_000_000)
    actual_value = serializers.IntegerField(min_value=0, max_value=100_000_000)
    stock = serializers.IntegerField(min_value=0, max_value=10_000_000, required=False)
    valid_days = serializers.IntegerField(min_value=1, max_value=3650, required=False)

    class Meta:
        model = Voucher
        fields = [
            "shop_id", "title", "sub_title", "rules", "pay_value", "actual_value", "type",
            "stock", "begin_time", "end_time", "valid_days",
        ]  # fmt: skip

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        merged = {**self._current(), **attrs}
        if merged.get("type") == Voucher.Kind.SECKILL:
            begin, end = merged.get("begin_time"), merged.get("end_time")
            if begin is None or end is None:
                raise serializers.ValidationError(
                    {"begin_time": ["A flash sale needs begin_time and end_time."]}
                )
            if begin >= end:
                raise serializers.ValidationError(
                    {"end_time": ["end_time must follow begin_time."]}
                )
        return attrs

    def _current(self) -> dict[str, Any]:
        voucher = self.instance
        if voucher is None:
            return {}
        return {
            "type": voucher.type,
            "begin_time": voucher.begin_time,
            "end_time": voucher.end_time,
        }


class SeckillResultSerializer(serializers.Serializer):
    order_id = serializers.CharField(help_text="64-bit id, as a string.")


class OrderSerializer(serializers.Serializer):
    """An order as its owner sees it; ids are strings (they exceed 2^53)."""

    id = serializers.CharField()  # str() of the int id
    voucher_id = serializers.IntegerField()
    status = serializers.CharField(help_text="pending (not yet persisted) or the DB status.")
    created_at = serializers.DateTimeField(allow_null=True)
    paid_at = serializers.DateTimeField(allow_null=True)
    expires_at = serializers.DateTimeField(allow_null=True)
    used_at = serializers.DateTimeField(allow_null=True)
    cancelled_at = serializers.DateTimeField(allow_null=True)


class MyVoucherSerializer(OrderSerializer):
    voucher = VoucherSerializer(read_only=True)


class MyVouchersPageSerializer(serializers.Serializer):
    results = MyVoucherSerializer(many=True)
    last_id = serializers.CharField(allow_null=True, help_text="Pass back to get the next page.")
