from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from rest_framework import serializers

from shops.models import LATITUDE_LIMIT
from shops.serializers import ShopCardSerializer, city_field
from toolkit.api import fields


class RecommendationQuerySerializer(serializers.Serializer):
    together = {"point": ("x", "y")}  # the schema shows them as one parameter

    x = fields.FloatField(
        min_value=-180, max_value=180, required=False, help_text="Where the reader is: longitude."
    )
    y = fields.FloatField(
        min_value=-LATITUDE_LIMIT,
        max_value=LATITUDE_LIMIT,
        required=False,
        help_text="Where the reader is: latitude.",
    )
    city = city_field()

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if ("x" in attrs) != ("y" in attrs):
            message = gettext("Give both x (longitude) and y (latitude).")
            raise serializers.ValidationError({"x": [message]})
        return attrs


class RecommendationsSerializer(serializers.Serializer):
    results = ShopCardSerializer(
        many=True,
        help_text="Up to 10 shops, best first: never one the reader rated or saved.",
    )
