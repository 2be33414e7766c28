"""Shop reads: cached detail and type list, lists by type, nearby search."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import redis
from django.conf import settings
from django.db.models import QuerySet

from accounts import tokens
from dianping.redis import keys
from dianping.redis.client import get_redis

from .caches import SHOP_TYPES_IDENT, shop_cache, shop_type_cache
from .errors import ShopNotFound
from .models import Shop, ShopStaff, ShopType
from .serializers import ShopSerializer, ShopTypeSerializer


@dataclass(frozen=True, slots=True)
class ShopView:
    raw: bytes | None  # the shop's JSON, None when there is no such shop
    viewer: dict[str, Any] | None  # the caller's token data, None when anonymous


def shop_detail(*, shop_id: int, token: str | None = None) -> ShopView:
    """The shop as JSON bytes through the cache and, in the same Redis round trip,
    the refresh of the caller's login token when there is one."""

    def load() -> dict[str, Any] | None:
        shop = Shop.objects.filter(pk=shop_id).first()
        return ShopSerializer(shop).data if shop else None

    touch = (lambda pipe: tokens.queue_touch(pipe, token)) if token else None
    lookup = shop_cache().lookup(shop_id, load, piggyback=touch)
    viewer = tokens.touched_data(lookup.extra[0]) if token else None
    return ShopView(lookup.raw, viewer)


def shop_exists(*, shop_id: int) -> None:
    if not Shop.objects.filter(pk=shop_id).exists():
        raise ShopNotFound()


def works_at(*, user_id: int, shop_id: int | None = None) -> bool:
    """Whether the user is on the staff of the shop (of any shop when `shop_id` is None):
    shop staff redeem its coupons and read its write-offs."""
    memberships = ShopStaff.objects.filter(user_id=user_id)
    if shop_id is not None:
        memberships = memberships.filter(shop_id=shop_id)
    return memberships.exists()


def shop_types_json() -> bytes:
    def load() -> list[dict[str, Any]]:
        return ShopTypeSerializer(ShopType.objects.order_by("sort", "id"), many=True).data

    raw = shop_type_cache().get(SHOP_TYPES_IDENT, load)
    assert raw is not None  # only a loader returning None makes a miss, and this one never does
    return raw


def shop_list(*, type_id: int | None = None, name: str | None = None) -> QuerySet[Shop]:
    shops = Shop.objects.order_by("id")
    if type_id is not None:
        shops = shops.filter(type_id=type_id)
    if name:
        shops = shops.filter(name__icontains=name)
    return shops


@dataclass(frozen=True, slots=True)
class NearbyHit:
    shop_id: int
    distance: float  # metres


def shops_nearby(*, type_id: int | None, x: float, y: float) -> list[NearbyHit]:
    """Every shop of the type (of any type when None) within the radius, nearest first
    (ties by id).

    The whole in-radius list comes back in one GEOSEARCH per type set (pipelined: one
    round trip however many types) and is sorted here with an id tie-break, so pages cut
    from it never repeat or skip a shop.
    """
    type_ids = [type_id] if type_id is not None else _all_type_ids()
    pipe = get_redis().pipeline(transaction=False)
    for each in type_ids:
        pipe.geosearch(
            keys.geo_shops(each),
            longitude=x,
            latitude=y,
            radius=settings.SHOP_NEARBY_RADIUS_M,
            unit="m",
            withdist=True,
        )
    return _ranked([hit for hits in pipe.execute() for hit in hits])


def _all_type_ids() -> list[int]:
    return list(ShopType.objects.order_by("id").values_list("id", flat=True))


def shops_named(hits: list[NearbyHit], *, name: str) -> list[NearbyHit]:
    """The hits whose shop's name contains `name` (one query over the hits' ids)."""
    named = set(
        Shop.objects.filter(pk__in=[hit.shop_id for hit in hits], name__icontains=name).values_list(
            "id", flat=True
        )
    )
    return [hit for hit in hits if hit.shop_id in named]


def shops_near_shop(*, shop_id: int, radius_m: int) -> tuple[Shop, list[NearbyHit]]:
    """The shop, and the other shops of its type within `radius_m` of it, nearest first
    (ties by id): one GEOSEARCH FROMMEMBER in the type's GEO set. A shop missing from
    the set (its index not rebuilt yet) is searched from its stored coordinates."""
    shop = Shop.objects.filter(pk=shop_id).only("id", "type_id", "x", "y").first()
    if shop is None:
        raise ShopNotFound()
    where = {"radius": radius_m, "unit": "m", "withdist": True}
    try:
        hits = get_redis().geosearch(keys.geo_shops(shop.type_id), member=shop_id, **where)
    except redis.ResponseError:  # not a member of the set
        hits = get_redis().geosearch(
            keys.geo_shops(shop.type_id), longitude=shop.x, latitude=shop.y, **where
        )
    return shop, [hit for hit in _ranked(hits) if hit.shop_id != shop_id]


def _ranked(hits: list[Any]) -> list[NearbyHit]:
    ranked = sorted((float(dist), int(member)) for member, dist in hits)
    return [NearbyHit(shop_id, dist) for dist, shop_id in ranked]


def shops_by_ids_in_order(hits: list[NearbyHit], *, type_id: int | None) -> list[Shop]:
    """One DB query for a page of hits, returned in the hits' order with `distance` set;
    with `type_id`, only shops still of that type (none deleted or moved meanwhile)."""
    shops = Shop.objects.in_bulk([hit.shop_id for hit in hits])
    ordered = []
    for hit in hits:
        shop = shops.get(hit.shop_id)
        if shop is not None and type_id in (None, shop.type_id):
            shop.distance = round(hit.distance, 1)
            ordered.append(shop)
    return ordered
