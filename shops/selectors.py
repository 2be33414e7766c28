"""Shop reads: cached detail and type list, a city's lists by type, nearby search."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson
import redis
from django.conf import settings
from django.db.models import QuerySet

from accounts import tokens
from toolkit import clock
from toolkit.api.lists import listed
from toolkit.redis.client import get_redis

from . import hours, keys
from .caches import shop_cache, shop_type_cache, shop_types_ident
from .errors import ShopNotFound
from .models import Shop, ShopStaff, ShopType
from .serializers import ShopDocumentSerializer, ShopTypeSerializer, reads_english

Hit = tuple[float, int]  # a shop found near a point: (metres, shop id)


@dataclass(frozen=True, slots=True)
class ShopView:
    raw: bytes | None  # the shop's JSON, None when there is no such shop
    viewer: dict[str, Any] | None  # the caller's token data, None when anonymous
    replies: list[Any] = field(default_factory=list)  # to the caller's `reads`


def shop_document_load(shop_id: int) -> dict[str, Any] | None:
    """A shop's document from the database (what its cache entry holds), None if absent."""
    return shop_documents_load([shop_id]).get(shop_id)


def shop_documents_load(shop_ids: list[int]) -> dict[int, dict[str, Any]]:
    """Shops' documents from the database in one query, by id; absent ones left out."""
    return {
        shop.id: ShopDocumentSerializer(shop).data for shop in Shop.objects.filter(pk__in=shop_ids)
    }


def shop_detail(
    *, shop_id: int, token: str | None = None, reads: tokens.Reads | None = None
) -> ShopView:
    """The shop's cached document as JSON bytes (without `open_now`: see `with_open_now`)
    through the cache and, in the same Redis round trip, the refresh of the caller's login
    token when there is one, and the commands `reads(pipe, viewer_id)` queues (the
    reader's own state: the `saved` marker). A token this process has not seen yet
    costs `reads` a second round trip (tokens.touch_with)."""

    def load() -> dict[str, Any] | None:
        return shop_document_load(shop_id)

    if not token:
        lookup = shop_cache().lookup(shop_id, load)
        return ShopView(lookup.raw, None, tokens.run_reads(reads, None))
    guess = tokens.guessed_viewer(token)

    def piggyback(pipe: Any) -> None:
        tokens.queue_touch(pipe, token)
        if reads is not None and guess is not None:
            reads(pipe, guess)

    lookup = shop_cache().lookup(shop_id, load, piggyback=piggyback)
    viewer = tokens.touched_data(lookup.extra[0])
    replies = tokens.settle_reads(token, viewer, guess, reads, lookup.extra[1:])
    return ShopView(lookup.raw, viewer, replies)


_HOURS_KEY = b',"hours":'


def with_open_now(raw: bytes, at: datetime | None = None) -> bytes:
    """A cached shop document as the API answers it: with `open_now` at `at` (the clock's
    now by default; a list passes one now for all its cards), spliced in without decoding
    the document (only its `hours`, its last key, are read; `"hours":` cannot occur inside
    a JSON string, where a quote is escaped). A document cached before it had `hours` gets
    `"hours": null` and `"open_now": null`."""
    cut = raw.rfind(_HOURS_KEY)
    if cut < 0:
        return raw[:-1] + b',"hours":null,"open_now":null}'
    now = hours.open_now_json(raw[cut + len(_HOURS_KEY) : -1], at or clock.now())
    return b"".join((raw[:-1], b',"open_now":', now, b"}"))


def with_saved(raw: bytes, saved: bool) -> bytes:
    """A shop document's JSON with the reader's `saved` marker as its last key, spliced
    in without decoding it (after `with_open_now`)."""
    return raw[:-1] + (b',"saved":true}' if saved else b',"saved":false}')


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
        return listed(ShopTypeSerializer(ShopType.objects.order_by("sort", "id"), many=True))

    raw = shop_type_cache().get(shop_types_ident(english=reads_english()), load)
    assert raw is not None  # only a loader returning None makes a miss, and this one never does
    return raw


SHOP_FILTERS = ("area", "price_min", "price_max", "score_min", "open_now")
# Best first, ties by id: every order is total, so pages never repeat or skip a shop.
ORDERS = {
    None: ("id",),
    "score": ("-score", "id"),
    "popular": ("-comments", "-sold", "id"),
}


def shop_list(
    *,
    city_id: int,
    type_id: int | None = None,
    name: str | None = None,
    sort: str | None = None,
    **filters: Any,
) -> QuerySet[Shop]:
    """Shops of a city (and of a type), named like `name`, within the filters (SHOP_FILTERS;
    `open_now` only keeps shops that have hours: see `open_ids`), in the order `sort` names."""
    shops = _filtered(Shop.objects.filter(city_id=city_id), **filters).order_by(*ORDERS[sort])
    if type_id is not None:
        shops = shops.filter(type_id=type_id)
    if name:
        shops = shops.filter(name__icontains=name)
    return shops


def _filtered(
    shops: QuerySet[Shop],
    *,
    area: str | None = None,
    price_min: int | None = None,
    price_max: int | None = None,
    score_min: int | None = None,
    open_now: bool | None = None,
) -> QuerySet[Shop]:
    if open_now:  # only those with hours can be open; which are is told in Python
        shops = shops.filter(hours__isnull=False)
    if area:
        shops = shops.filter(area=area)
    if price_min is not None:
        shops = shops.filter(avg_price__gte=price_min)
    if price_max is not None:
        shops = shops.filter(avg_price__lte=price_max)
    if score_min is not None:
        shops = shops.filter(score__gte=score_min)
    return shops


def open_ids(shops: QuerySet[Shop]) -> list[int]:
    """The ids of the shops open now among the first SHOP_OPEN_NOW_SCAN of `shops` (in its
    order), from one query of their ids and hours (decision 323)."""
    at = clock.now()
    rows = shops.values_list("id", "hours")[: settings.SHOP_OPEN_NOW_SCAN]
    return [shop_id for shop_id, found in rows if hours.open_now(found, at)]


def queue_nearby(pipe: Any, *, city_id: int, type_ids: list[int], x: float, y: float) -> None:
    """One GEOSEARCH per type's set of the city around (x, y), queued on the caller's
    pipeline (its round trip may refresh the caller's token too); `nearby_hits` reads the
    replies."""
    radius = settings.SHOP_NEARBY_RADIUS_M
    for type_id in type_ids:
        pipe.execute_command(
            "GEOSEARCH",
            keys.geo_shops(city_id, type_id),
            "FROMLONLAT",
            x,
            y,
            "BYRADIUS",
            radius,
            "m",
            "WITHDIST",
            "ASC",
        )


def nearby_hits(replies: list[Any], *, first: int | None = None) -> tuple[int, list[Hit]]:
    """How many shops the GEOSEARCH replies found, and the first `first` of them (all, by
    default) as (metres, shop id), nearest first, ties by id: pages cut from the list
    never repeat or skip a shop.

    The replies are as Redis sent them (redis-py's parsing of each pair cost more than the
    search): a centre of town has hundreds of shops within 5 km, and a page shows five.
    One reply comes sorted by distance (ASC), so only its first `first` pairs and their
    ties are parsed; several are merged whole.
    """
    total = sum(len(hits) for hits in replies)
    if first is not None and first < 1:
        return total, []
    if first is None or first >= total or len(replies) != 1:
        hits = sorted((float(dist), int(member)) for hits in replies for member, dist in hits)
        return total, hits[:first]
    (hits,) = replies
    # Redis orders by the exact distance, the reply shows it rounded: the pairs ranked
    # first by (rounded metres, id) are those up to the last one tied with pair `first`.
    end, boundary = first, hits[first - 1][1]
    while end < total and hits[end][1] == boundary:
        end += 1
    return total, sorted((float(dist), int(member)) for member, dist in hits[:end])[:first]


def nearby_type_ids(type_id: int | None) -> list[int]:
    """The GEO sets to search: the type's, or every type's (from the cached type list)."""
    if type_id is not None:
        return [type_id]
    return [shop_type["id"] for shop_type in orjson.loads(shop_types_json())]


def hits_matching(
    hits: list[Hit], *, name: str | None = None, sort: str | None = None, **filters: Any
) -> list[Hit]:
    """The hits whose shop is named like `name` and within the filters, nearest first or
    in the order `sort` names (ties nearest first): one query over the hits' ids."""
    shops = _filtered(Shop.objects.filter(pk__in=[shop_id for _, shop_id in hits]), **filters)
    if name:
        shops = shops.filter(name__icontains=name)
    columns = ("id", "score", "comments", "sold", *(("hours",) if filters.get("open_now") else ()))
    rows = {row[0]: row[1:] for row in shops.values_list(*columns)}
    if filters.get("open_now"):
        at = clock.now()
        rows = {shop_id: row for shop_id, row in rows.items() if hours.open_now(row[3], at)}
    kept = [hit for hit in hits if hit[1] in rows]
    if sort == "score":
        kept.sort(key=lambda hit: (-rows[hit[1]][0], hit))
    elif sort == "popular":
        kept.sort(key=lambda hit: (-rows[hit[1]][1], -rows[hit[1]][2], hit))
    return kept


def shops_near_shop(*, shop: dict[str, Any], radius_m: int, first: int) -> tuple[int, list[Hit]]:
    """How many other shops of `shop`'s type and city (its cached document) are within
    `radius_m` of it, and the first `first` of them as `nearby_hits` gives them: one
    GEOSEARCH FROMMEMBER in the GEO set of its city and type. A shop missing from the set
    (its index not rebuilt yet) is searched from its coordinates."""
    geo = keys.geo_shops(document_city_id(shop), shop["type_id"])
    where = ("BYRADIUS", radius_m, "m", "WITHDIST", "ASC")
    client = get_redis()
    try:
        hits = client.execute_command("GEOSEARCH", geo, "FROMMEMBER", shop["id"], *where)
    except redis.ResponseError:  # not a member of the set
        hits = client.execute_command("GEOSEARCH", geo, "FROMLONLAT", shop["x"], shop["y"], *where)
    # The shop itself, if found, is among the first pairs: those at distance 0.
    me = str(shop["id"]).encode()
    found_itself = any(member == me for member, _ in itertools.takewhile(_at_zero, hits))
    total, nearest = nearby_hits([hits], first=first + found_itself)
    return total - found_itself, [hit for hit in nearest if hit[1] != shop["id"]][:first]


def _at_zero(pair: list[bytes]) -> bool:
    return float(pair[1]) == 0


def document_city_id(shop: dict[str, Any]) -> int:
    """A cached shop document's city; one cached before documents had it (a deploy ago, for
    at most SHOP_CACHE_TTL) is looked up."""
    if "city_id" in shop:
        return int(shop["city_id"])
    city_id = Shop.objects.filter(pk=shop["id"]).values_list("city_id", flat=True).first()
    if city_id is None:  # deleted since it was read from the cache
        raise ShopNotFound()
    return city_id


def shop_documents(shop_ids: list[int]) -> dict[int, dict[str, Any]]:
    """The shops' API documents from the shop cache (the near cache's copies first: no
    round trip at all for hot shops), the missing ones loaded in one query, each with its
    `open_now` at the clock's now (never cached); a shop that no longer exists is left out."""

    raws = shop_raws(shop_ids)
    at = clock.now()
    documents = {}
    for shop_id, raw in raws.items():
        if raw is not None:
            document = documents[shop_id] = orjson.loads(raw)
            found = document.setdefault("hours", None)  # None: cached before it had hours
            document["open_now"] = hours.open_now(found, at)
    return documents


def shop_raws(shop_ids: list[int]) -> dict[int, bytes | None]:
    """The shops' cached documents as JSON bytes (without `open_now`), through the shop
    cache as `shop_documents` reads them; None for a shop that no longer exists."""
    return shop_cache().lookup_many(shop_ids, shop_documents_load)


def with_distances(
    hits: list[tuple[float, int]], *, type_id: int | None, city_id: int
) -> list[dict[str, Any]]:
    """A page of hits as the API shows them, in the hits' order, each with `distance`;
    only shops still of that city (and of `type_id`, if given): not deleted or moved
    meanwhile."""
    documents = shop_documents([shop_id for _, shop_id in hits])
    page = []
    for distance, shop_id in hits:
        shop = documents.get(shop_id)
        if (
            shop is not None
            and type_id in (None, shop["type_id"])
            and shop.get("city_id", city_id) == city_id  # cached before it had one: as found
        ):
            shop["distance"] = round(distance, 1)
            page.append(shop)
    return page
