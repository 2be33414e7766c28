"""The shop app's domain errors."""

from __future__ import annotations

from dianping.errors import NotFound


class ShopNotFound(NotFound):
    default_code = "shop_not_found"
    default_detail = "No such shop."
