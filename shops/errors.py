"""Every error code the shops app answers with, in one place (docs/product/shops.md),
and its errors."""

from __future__ import annotations

from enum import StrEnum

from django.utils.translation import gettext_lazy as _

from toolkit.errors import InvalidInput, NotFound


class Code(StrEnum):
    SHOP_NOT_FOUND = "shop_not_found"  # 404
    SHOP_TYPE_NOT_FOUND = "shop_type_not_found"  # 404: a shop's type_id names none
    SHOP_IN_USE = "shop_in_use"  # 409: vouchers or orders point at the shop
    SHOP_TYPE_IN_USE = "shop_type_in_use"  # 409: shops have the type
    INVALID_HOURS = "invalid_hours"  # 400: opening hours (shops/hours.py) that make no sense
    CITY_NOT_FOUND = "city_not_found"  # 404: a `city` query names none; 409 in a shop's body
    CITY_IN_USE = "city_in_use"  # 409: shops are in the city


class ShopNotFound(NotFound):
    default_code = Code.SHOP_NOT_FOUND
    default_detail = _("No such shop.")


class ShopTypeNotFound(NotFound):
    default_code = Code.SHOP_TYPE_NOT_FOUND
    default_detail = _("No such shop type.")


class CityNotFound(NotFound):
    default_code = Code.CITY_NOT_FOUND
    default_detail = _("No such city.")


class InvalidHours(InvalidInput):
    """Opening hours (shops/hours.py) refused: the detail names the first problem."""

    default_code = Code.INVALID_HOURS
    default_detail = _("Invalid opening hours.")
