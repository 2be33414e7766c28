"""Shop reads: cached detail and type list, lists by type, nearby search."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson
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


def queue_nearby(pipe: Any, *, type_ids: list[int], x: float, y: float) -> None:
    """One GEOSEARCH per type's set around (x, y), queued on the caller's pipeline (its
    round trip may refresh the caller's token too); `nearby_hits` reads the replies."""
    radius = settings.SHOP_NEARBY_RADIUS_M
    for type_id in type_ids:
        # As sent, not through redis-py's reply parsing: a centre of town has hundreds of
        # shops within 5 km, and parsing each pair in Python cost more than the search.
        pipe.execute_command(
            "GEOSEARCH", keys.geo_shops(type_id), "FROMLONLAT", x, y, "BYRADIUS", radius, "m",
            "WITHDIST",
        )  # fmt: skip


def nearby_hits(replies: list[Any]) -> list[tuple[float, int]]:
    """Every shop within the radius as (metres, shop id), nearest first, ties by id: pages
    cut from the list never repeat or skip a shop."""
    return sorted((float(dist), int(member)) for hits in replies for member, dist in hits)


def nearby_type_ids(type_id: int | None) -> list[int]:
    """The GEO sets to search: the type's, or every type's (from the cached type list)."""
    if type_id is not None:
        return [type_id]
    return [shop_type["id"] for shop_type in orjson.loads(shop_types_json())]


def shops_named(hits: list[tuple[float, int]], *, name: str) -> list[tuple[float, int]]:
    """The hits whose shop's name contains `name` (one query over the hits' ids)."""
    ids = [shop_id for _, shop_id in hits]
    named = set(Shop.objects.filter(pk__in=ids, name__icontains=name).values_list("id", flat=True))
    return [hit for hit in hits if hit[1] in named]


def shops_near_shop(*, shop: dict[str, Any], radius_m: int) -> list[tuple[float, int]]:
    """The other shops of `shop`'s type (its cached document) within `radius_m` of it, as
    (metres, shop id), nearest first (ties by id): one GEOSEARCH FROMMEMBER in the type's
    GEO set. A shop missing from the set (its index not rebuilt yet) is searched from its
    coordinates."""
    geo = keys.geo_shops(shop["type_id"])
    where = ("BYRADIUS", radius_m, "m", "WITHDIST")
    client = get_redis()
    try:
        hits = client.execute_command("GEOSEARCH", geo, "FROMMEMBER", shop["id"], *where)
    except redis.ResponseError:  # not a member of the set
        hits = client.execute_command("GEOSEARCH", geo, "FROMLONLAT", shop["x"], shop["y"], *where)
    return [hit for hit in nearby_hits([hits]) if hit[1] != shop["id"]]


def shop_documents(shop_ids: list[int]) -> dict[int, dict[str, Any]]:
    """The shops' API documents from the shop cache (the near cache's copies first: no
    round trip at all for hot shops), the missing ones loaded in one query; a shop that no
    longer exists is left out."""

    def load(missing: list[int]) -> dict[int, dict[str, Any]]:
        return {s.id: ShopSerializer(s).data for s in Shop.objects.filter(pk__in=missing)}

    raws = shop_cache().lookup_many(shop_ids, load)
    return {shop_id: orjson.loads(raw) for shop_id, raw in raws.items() if raw is not None}


def with_distances(hits: list[tuple[float, int]], *, type_id: int | None) -> list[dict[str, Any]]:
    """A page of hits as the API shows them, in the hits' order, each with `distance`;
    with `type_id`, only shops still of that type (not deleted or moved meanwhile)."""
    documents = shop_documents([shop_id for _, shop_id in hits])
    page = []
    for distance, shop_id in hits:
        shop = documents.get(shop_id)
        if shop is not None and type_id in (None, shop["type_id"]):
            shop["distance"] = round(distance, 1)
            page.append(shop)
    return page
