"""Shop request validation and response shapes. Writable fields are listed explicitly."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext
from rest_framework import serializers

from dianping.api import fields

from .errors import ShopTypeNotFound
from .models import LATITUDE_LIMIT as LAT_LIMIT
from .models import Shop, ShopType


class ShopTypeSerializer(serializers.ModelSerializer):
    """A type's `name` in the reader's language: the categories are the product's own
    words, so English readers get `name_en` where an operator gave one."""

    class Meta:
        model = ShopType
        fields = ["id", "name", "icon", "sort"]

    def to_representation(self, instance: ShopType) -> dict[str, Any]:
        data = super().to_representation(instance)
        if instance.name_en and reads_english():
            data["name"] = instance.name_en
        return data


def reads_english() -> bool:
    return (translation.get_language() or "").startswith("en")


class ShopSerializer(serializers.ModelSerializer):
    type_id = serializers.IntegerField(read_only=True)
    ratings = serializers.SerializerMethodField(
        help_text="How many ratings gave 1, 2, 3, 4 and 5 stars (one per user)."
    )

    class Meta:
        model = Shop
        fields = [
            "id", "name", "type_id", "images", "area", "address", "x", "y", "avg_price",
            "sold", "comments", "score", "ratings", "open_hours", "created_at", "updated_at",
        ]  # fmt: skip
        read_only_fields = fields

    def get_ratings(self, shop: Shop) -> list[int]:
        return [shop.rating_1, shop.rating_2, shop.rating_3, shop.rating_4, shop.rating_5]


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


class ShopWriteSerializer(fields.StrictModelSerializer):
    """What staff may set. sold, comments and score come from business events, not edits."""

    type_id = fields.PrimaryKeyRelatedField(
        source="type", queryset=ShopType.objects.all(), missing=ShopTypeNotFound
    )
    images = serializers.ListField(
        child=fields.ImageUrlField(max_length=255), max_length=9, required=False
    )
    x = fields.FloatField(min_value=-180, max_value=180)
    y = fields.FloatField(min_value=-LAT_LIMIT, max_value=LAT_LIMIT)
    avg_price = fields.IntegerField(min_value=0, max_value=1_000_000, required=False)

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


PRICE_MAX = 1_000_000  # yuan: what staff may set as an average price
SORTS = ("score", "popular")  # near a point, nearest first unless one is given


class ShopListQuerySerializer(serializers.Serializer):
    together = {"point": ("x", "y")}  # the schema shows them as one parameter

    type_id = fields.IdField(required=False)
    name = fields.CharField(max_length=64, required=False)
    x = fields.FloatField(min_value=-180, max_value=180, required=False)
    y = fields.FloatField(min_value=-LAT_LIMIT, max_value=LAT_LIMIT, required=False)
    area = fields.CharField(
        max_length=64, required=False, help_text="Only this business district (exactly)."
    )
    price_min = fields.IntegerField(
        min_value=0, max_value=PRICE_MAX, required=False, help_text="Average price from (yuan)."
    )
    price_max = fields.IntegerField(
        min_value=0, max_value=PRICE_MAX, required=False, help_text="Average price up to (yuan)."
    )
    score_min = fields.IntegerField(
        min_value=0, max_value=50, required=False, help_text="Score at least (rating x10: 0..50)."
    )
    sort = fields.ChoiceField(
        choices=SORTS,
        required=False,
        help_text="score (best first) or popular (most reviewers, then most sold); without it, "
        "nearest first with x and y, by id without.",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if ("x" in attrs) != ("y" in attrs):
            message = gettext("Give both x (longitude) and y (latitude).")
            raise serializers.ValidationError({"x": [message]})
        return attrs


class NearShopQuerySerializer(serializers.Serializer):
    radius = fields.IntegerField(
        min_value=1,
        max_value=settings.SHOP_NEARBY_RADIUS_M,
        default=1000,
        help_text="Metres around the shop (at most 5,000).",
    )
