"""Shop request validation and response shapes. Writable fields are listed explicitly."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext, gettext_lazy
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from toolkit import clock
from toolkit.api import fields

from . import hours
from .errors import CityNotFound, InvalidHours, ShopTypeNotFound
from .models import CITY_CODE, SUB_SCORES, City, Shop, ShopType
from .models import LATITUDE_LIMIT as LAT_LIMIT
from .scores import mean_x10


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


class CitySerializer(serializers.ModelSerializer):
    """A city, its `name` in the reader's language (as a type's), `x`/`y` its centre."""

    default = serializers.SerializerMethodField(
        method_name="is_default", help_text="Whether this is the city of a read without `city`."
    )

    class Meta:
        model = City
        fields = ["id", "code", "name", "x", "y", "default"]

    def is_default(self, city: City) -> bool:
        return city.code == settings.DEFAULT_CITY

    def to_representation(self, instance: City) -> dict[str, Any]:
        data = super().to_representation(instance)
        if instance.name_en and reads_english():
            data["name"] = instance.name_en
        return data


def city_field() -> fields.CharField:
    """The `city` query parameter of every per-city read (decision 392)."""
    return fields.CharField(
        required=False,
        max_length=32,
        pattern=CITY_CODE,
        pattern_message=gettext_lazy("A city's code: lowercase letters, digits and hyphens."),
        help_text="A city's `code` (GET /api/cities); without it, the default city. A code "
        "of no city is 404 `city_not_found`.",
    )


def reads_english() -> bool:
    return (translation.get_language() or "").startswith("en")


_RANGE = {
    "type": "array",
    "items": {"type": "string", "pattern": r"^([01][0-9]|2[0-3]):[0-5][0-9]$|^24:00$"},
    "minItems": 2,
    "maxItems": 2,
    "description": "[start, end], HH:MM local time; an end at or before the start runs "
    "overnight into the next day; 24:00 only as an end.",
}
HOURS_SCHEMA = {
    "type": "object",
    "nullable": True,
    "description": "Structured opening hours, local time (the server's TIME_ZONE); null when "
    "the shop has none. `weekly`: mon..sun, each a list of at most 4 ranges that never "
    "overlap (a missing or empty day is closed); `closed_dates`: at most 60 local dates "
    "closed all day (a holiday also ends the night before's overnight range at midnight).",
    "properties": {
        "weekly": {
            "type": "object",
            "properties": {
                day: {"type": "array", "items": _RANGE, "maxItems": hours.MAX_RANGES_PER_DAY}
                for day in hours.DAYS
            },
            "additionalProperties": False,
        },
        "closed_dates": {
            "type": "array",
            "items": {"type": "string", "format": "date"},
            "maxItems": hours.MAX_CLOSED_DATES,
        },
    },
    "additionalProperties": False,
    "example": {
        "weekly": {
            "mon": [["10:00", "14:00"], ["17:00", "02:00"]],
            "tue": [["10:00", "22:00"]],
            "sun": [],
        },
        "closed_dates": ["2026-12-25"],
    },
}


@extend_schema_field(HOURS_SCHEMA)
class HoursField(serializers.JSONField):
    """Opening hours in shops/hours.py's format, validated and normalised by it."""

    def to_internal_value(self, data: Any) -> Any:
        try:
            return hours.validate(super().to_internal_value(data))
        except InvalidHours as exc:
            raise serializers.ValidationError(exc.detail, code=exc.code) from None


class SubScoreFields(serializers.Serializer):
    """Taste, environment and service (`SUB_SCORES`), appended after the declared fields as
    `sub_score_field` makes each: the three names are written once, here, for every shape
    that carries them (a review's input, a shop's averages and their counts)."""

    def sub_score_field(self, name: str) -> serializers.Field:
        raise NotImplementedError

    def get_fields(self) -> dict[str, serializers.Field]:
        declared = super().get_fields()
        return {**declared, **{name: self.sub_score_field(name) for name in SUB_SCORES}}


class SubScoresSerializer(SubScoreFields):
    """Per sub-score, the mean of the ratings that gave one (one per user, as the score),
    x10 and rounded half up like `score`; null when none did."""

    def sub_score_field(self, name: str) -> serializers.Field:
        return serializers.IntegerField(min_value=10, max_value=50, allow_null=True)


class SubScoreCountsSerializer(SubScoreFields):
    """Per sub-score, how many of the ratings that count gave one."""

    def sub_score_field(self, name: str) -> serializers.Field:
        return serializers.IntegerField(min_value=0)


class RankBadgeSerializer(serializers.Serializer):
    """A shop's badge: its best rank among this week's lists of its city (docs/rankings.md)."""

    rank = serializers.IntegerField(help_text="1 is the best.")
    list = serializers.CharField(help_text='The list\'s name: its district or its type ("静安寺").')
    type_id = serializers.IntegerField(
        allow_null=True, help_text="The type of a list by type; null for a district's."
    )
    area = serializers.CharField(
        allow_null=True, help_text="The district of a district's list; null for a type's."
    )


class ShopDocumentSerializer(serializers.ModelSerializer):
    """A shop as the caches hold it (shop_cache): everything but `open_now`, which changes
    with the clock and is added to each answer (ShopSerializer, selectors.with_open_now).
    `hours` is its last key: the detail's fast path finds it there without decoding."""

    type_id = serializers.IntegerField(read_only=True)
    city_id = serializers.IntegerField(read_only=True, help_text="Its city (GET /api/cities).")
    ratings = serializers.SerializerMethodField(
        help_text="How many ratings gave 1, 2, 3, 4 and 5 stars (one per user)."
    )
    sub_scores = serializers.SerializerMethodField()
    sub_score_counts = serializers.SerializerMethodField()
    open_hours = serializers.CharField(
        read_only=True,
        help_text="Opening hours as text for older clients: derived from `hours` (the most "
        'common day\'s ranges, as "10:00-14:00, 17:00-02:00") when the shop has them.',
    )
    hours = HoursField(read_only=True)
    rank = RankBadgeSerializer(
        read_only=True,
        allow_null=True,
        help_text="Its best place on this week's rankings (GET /api/rankings); null when "
        "it is on none.",
    )
    phone = serializers.CharField(
        read_only=True,
        help_text="The shop's phone number as customers dial it (its owner keeps it); empty "
        "when it has none.",
    )

    class Meta:
        model = Shop
        fields = [
            "id",
            "name",
            "type_id",
            "city_id",
            "images",
            "area",
            "address",
            "x",
            "y",
            "avg_price",
            "phone",
            "sold",
            "comments",
            "score",
            "ratings",
            "sub_scores",
            "sub_score_counts",
            "open_hours",
            "created_at",
            "updated_at",
            "favourites",
            "rank",
            "hours",
        ]
        read_only_fields = fields

    def get_ratings(self, shop: Shop) -> list[int]:
        return [shop.rating_1, shop.rating_2, shop.rating_3, shop.rating_4, shop.rating_5]

    @extend_schema_field(SubScoresSerializer)
    def get_sub_scores(self, shop: Shop) -> dict[str, int | None]:
        """The reviews' taste, environment and service stars, averaged as `score` is."""
        return {
            name: mean_x10(getattr(shop, f"{name}_sum"), getattr(shop, f"{name}_count"))
            for name in SUB_SCORES
        }

    @extend_schema_field(SubScoreCountsSerializer)
    def get_sub_score_counts(self, shop: Shop) -> dict[str, int]:
        """How many ratings (one per user) gave each sub-score."""
        return {name: getattr(shop, f"{name}_count") for name in SUB_SCORES}


class ShopSerializer(ShopDocumentSerializer):
    open_now = serializers.SerializerMethodField(
        help_text="Whether the shop is open at the time of the request, by `hours` "
        "(computed per request, never cached); null when the shop has no structured hours."
    )

    class Meta(ShopDocumentSerializer.Meta):
        fields = [*ShopDocumentSerializer.Meta.fields, "open_now"]
        read_only_fields = fields

    def get_open_now(self, shop: Shop) -> bool | None:
        return hours.open_now(shop.hours, clock.now())


class ShopCardSerializer(ShopSerializer):
    """Documentation shape of a shop as readers get it (its page, lists, search): with the
    reader's `saved` marker, read live with the rest of the page's state."""

    saved = serializers.BooleanField(
        read_only=True,
        help_text="Whether the caller saved the shop to their favourites (false when not "
        "signed in).",
    )

    class Meta(ShopSerializer.Meta):
        fields = [*ShopSerializer.Meta.fields, "saved"]
        read_only_fields = fields


class NearbyShopSerializer(ShopCardSerializer):
    distance = serializers.FloatField(
        read_only=True, help_text="Metres from the centre searched: (x, y), or the shop."
    )

    class Meta(ShopCardSerializer.Meta):
        fields = [*ShopCardSerializer.Meta.fields, "distance"]
        read_only_fields = fields


class ShopListItemSerializer(ShopCardSerializer):
    """Documentation shape of the shop list's items: `distance` only for a nearby search."""

    distance = serializers.FloatField(
        required=False, help_text="Metres from (x, y): present when x and y are given."
    )

    class Meta(ShopCardSerializer.Meta):
        fields = [*ShopCardSerializer.Meta.fields, "distance"]


class ShopWriteSerializer(fields.StrictModelSerializer):
    """What staff may set. sold, comments and score come from business events, not edits."""

    type_id = fields.PrimaryKeyRelatedField(
        source="type", queryset=ShopType.objects.all(), missing=ShopTypeNotFound
    )
    city_id = fields.PrimaryKeyRelatedField(
        source="city",
        queryset=City.objects.all(),
        missing=CityNotFound,
        required=False,
        help_text="Its city (GET /api/cities); a new shop without one is in the default city.",
    )
    images = serializers.ListField(
        child=fields.ImageUrlField(max_length=255), max_length=9, required=False
    )
    x = fields.FloatField(min_value=-180, max_value=180)
    y = fields.FloatField(min_value=-LAT_LIMIT, max_value=LAT_LIMIT)
    avg_price = fields.IntegerField(min_value=0, max_value=1_000_000, required=False)
    hours = HoursField(
        required=False,
        allow_null=True,
        help_text="Structured opening hours (see the shop's `hours`); null removes them. "
        "While a shop has them, `open_hours` is derived from them and any given is ignored.",
    )

    class Meta:
        model = Shop
        fields = [
            "name",
            "type_id",
            "city_id",
            "images",
            "area",
            "address",
            "x",
            "y",
            "avg_price",
            "open_hours",
            "hours",
        ]


PRICE_MAX = 1_000_000  # yuan: what staff may set as an average price
SORTS = ("score", "popular")  # near a point, nearest first unless one is given


class ShopListQuerySerializer(serializers.Serializer):
    together = {"point": ("x", "y")}  # the schema shows them as one parameter

    type_id = fields.IdField(required=False)
    city = city_field()
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
    open_now = fields.BooleanField(
        required=False,
        help_text="true: only shops open at the time of the request (by their `hours`; shops "
        "without hours never match). Without x and y it looks at the first "
        f"{settings.SHOP_OPEN_NOW_SCAN} shops with hours in the list's order.",
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
