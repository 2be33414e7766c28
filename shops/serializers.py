"""Shop request validation and response shapes. Writable fields are listed explicitly."""

from __future__ import annotations

import math
from typing import Any

from django.conf import settings
from django.utils.translation import gettext
from rest_framework import serializers

from dianping.validation import MAX_DB_ID

from .models import LATITUDE_LIMIT as LAT_LIMIT
from .models import Shop, ShopType


class ShopTypeSerializer(serializers.ModelSerializer):
    class Meta:
        model = ShopType
        fields = ["id", "name", "icon", "sort"]


class ShopSerializer(serializers.ModelSerializer):
    type_id = serializers.IntegerField(read_only=True)

    class Meta:
        model = Shop
        fields = [
            "id", "name", "type_id", "images", "area", "address", "x", "y", "avg_price",
            "sold", "comments", "score", "open_hours", "created_at", "updated_at",
        ]  # fmt: skip
        read_only_fields = fields


class NearbyShopSerializer(ShopSerializer):
    distance = serializers.FloatField(
        read_only=True, help_text="Metres from the centre searched: (x, y), or the shop."
    )

    class Meta(ShopSerializer.Meta):
        fields = [*ShopSerializer.Meta.fields, "distance"]
        read_only_fields = fields


class ShopListItemSerializer(ShopSerializer):
    """Documentation shape of the shop list's items: `distance` only for a nearby search."""

    distance = serializers.FloatField(
        required=False, help_text="Metres from (x, y): present when x and y are given."
    )

    class Meta(ShopSerializer.Meta):
        fields = [*ShopSerializer.Meta.fields, "distance"]


def _finite(value: float) -> float:
    if not math.isfinite(value):
        raise serializers.ValidationError(gettext("A finite number is required."))
    return value


class ShopWriteSerializer(serializers.ModelSerializer):
    """What staff may set. sold, comments and score come from business events, not edits."""

    type_id = serializers.PrimaryKeyRelatedField(source="type", queryset=ShopType.objects.all())
    images = serializers.ListField(
        child=serializers.URLField(max_length=255), max_length=9, required=False
    )
    x = serializers.FloatField(min_value=-180, max_value=180, validators=[_finite])
    y = serializers.FloatField(min_value=-LAT_LIMIT, max_value=LAT_LIMIT, validators=[_finite])
    avg_price = serializers.IntegerField(min_value=0, max_value=1_000_000, required=False)

    class Meta:
        model = Shop
        fields = [
            "name",
            "type_id",
            "images",
            "area",
            "address",
            "x",
            "y",
            "avg_price",
            "open_hours",
        ]


class ShopListQuerySerializer(serializers.Serializer):
    type_id = serializers.IntegerField(min_value=1, max_value=MAX_DB_ID, required=False)
    name = serializers.CharField(max_length=64, required=False)
    x = serializers.FloatField(min_value=-180, max_value=180, required=False, validators=[_finite])
    y = serializers.FloatField(
        min_value=-LAT_LIMIT, max_value=LAT_LIMIT, required=False, validators=[_finite]
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if ("x" in attrs) != ("y" in attrs):
            message = gettext("Give both x (longitude) and y (latitude).")
            raise serializers.ValidationError({"x": [message]})
        if "x" in attrs and "type_id" not in attrs:
            message = gettext("Nearby search needs a shop type.")
            raise serializers.ValidationError({"type_id": [message]})
        return attrs


class NearShopQuerySerializer(serializers.Serializer):
    radius = serializers.IntegerField(
        min_value=1,
        max_value=settings.SHOP_NEARBY_RADIUS_M,
        default=1000,
        help_text="Metres around the shop (at most 5,000).",
    )
