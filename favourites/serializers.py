"""Favourites' request and response shapes."""

from __future__ import annotations

from rest_framework import serializers

from blogs.serializers import BlogSerializer
from shops.serializers import ShopCardSerializer
from toolkit.api import fields
from toolkit.api.scroll import ScrollQuerySerializer
from vouchers.serializers import VoucherCardSerializer

from .models import Favourite


class SavedStateSerializer(serializers.Serializer):
    saved = serializers.BooleanField(help_text="Whether the caller has it saved now.")
    favourites = serializers.IntegerField(
        allow_null=True,
        help_text="How many users saved it (shops and notes); null for a voucher.",
    )


class FavouriteQuerySerializer(ScrollQuerySerializer):
    kind = fields.ChoiceField(Favourite.Kind.choices, help_text="Which kind to list.")


class FavouriteItemSerializer(serializers.Serializer):
    """One favourite: its kind's card under the kind's name, the other two null."""

    kind = serializers.ChoiceField(Favourite.Kind.choices)
    saved_at = serializers.DateTimeField()
    shop = ShopCardSerializer(allow_null=True, help_text="For `kind` shop: as the shop lists.")
    blog = BlogSerializer(allow_null=True, help_text="For `kind` blog: as the hot notes.")
    voucher = VoucherCardSerializer(
        allow_null=True, help_text="For `kind` voucher: as a shop's vouchers."
    )
