"""The rankings read's query and, for the schema, its answer."""

from __future__ import annotations

from rest_framework import serializers

from shops.serializers import ShopCardSerializer, city_field
from toolkit.api import fields


class RankingQuerySerializer(serializers.Serializer):
    type_id = fields.IdField(required=False, help_text="The list of this shop type's shops.")
    area = fields.CharField(
        max_length=64, required=False, help_text="The list of this district's shops (exactly)."
    )
    city = city_field()


class RankedShopSerializer(serializers.Serializer):
    rank = serializers.IntegerField(help_text="1 is the best.")
    shop = ShopCardSerializer(help_text="The shop's card as the shop lists show it.")
    score = serializers.FloatField(help_text="The ranking score (docs/rankings.md).")


class RankingListsSerializer(serializers.Serializer):
    type_ids = serializers.ListField(
        child=serializers.IntegerField(), help_text="The types with a list this week."
    )
    areas = serializers.ListField(
        child=serializers.CharField(), help_text="The districts with a list this week."
    )


class RankingSerializer(serializers.Serializer):
    week = serializers.CharField(
        allow_null=True, help_text='The ISO week computed ("2026-W48"); null before the first.'
    )
    computed_at = serializers.DateTimeField(allow_null=True)
    results = RankedShopSerializer(many=True, help_text="Best first, at most RANKING_TOP (50).")
    lists = RankingListsSerializer(help_text="Which lists the city has (the client's tabs).")
