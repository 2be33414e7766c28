"""The weekly rankings' computation (docs/rankings.md): per city, every list by type and by
district scored by `formula`, written to Redis in one step (a RENAME of the complete next
hash: a reader sees the old lists or the new, never a half), and each ranked shop's badge
in its row, its cached document evicted (decision 413)."""

from __future__ import annotations

import logging
from collections import defaultdict
from datetime import timedelta
from typing import Any

import orjson
from django.conf import settings
from django.db import transaction
from django.db.models import Count
from django.utils import timezone

from favourites.models import Favourite
from shops.caches import shop_cache
from shops.models import City, Shop
from shops.serializers import ShopDocumentSerializer
from toolkit import clock
from toolkit.redis import keys as redis_keys
from toolkit.redis.client import get_redis
from toolkit.redis.multikey import hyperloglog_counts
from toolkit.redis.scripts import lua
from traffic import keys as traffic_keys
from traffic import visits

from . import formula, keys, stored

_REPLACE = lua(__file__, "replace.lua")

log = logging.getLogger(__name__)

META = "meta"


def type_field(type_id: int) -> str:
    return f"type:{type_id}"


def area_field(area: str) -> str:
    return f"area:{area}"


def current_week() -> str:
    """The ISO week of today in TIME_ZONE, as the lists name it ("2026-W48")."""
    year, week, _ = timezone.localdate(clock.now()).isocalendar()
    return f"{year}-W{week:02d}"


def stored_week(city_id: int) -> str | None:
    raw = get_redis().hget(keys.rankings(city_id), META)
    return orjson.loads(raw)["week"] if raw else None


def compute_all(*, force: bool = False) -> list[int]:
    """Compute the lists of every city whose stored lists are not of this week (all of
    them with `force`): the ids of the cities computed."""
    week = current_week()
    done = []
    for city_id in City.objects.order_by("id").values_list("id", flat=True):
        if force or stored_week(city_id) != week:
            compute_city(city_id=city_id)
            done.append(city_id)
    return done


def compute_city(*, city_id: int) -> dict[str, list[int]]:
    """Score the city's shops, write its lists and the badges; the lists' shop ids by field."""
    shops = list(
        Shop.objects.filter(city_id=city_id, comments__gte=settings.RANKING_MIN_REVIEWS)
        .select_related("type")
        .order_by("id")
    )
    histograms = Shop.objects.filter(city_id=city_id).values_list(
        "rating_1", "rating_2", "rating_3", "rating_4", "rating_5"
    )
    prior = formula.city_mean(list(histograms))
    signals = _signals(shops)
    by_id = {shop.id: shop for shop in shops}
    groups: dict[str, list[formula.Signals]] = defaultdict(list)
    for shop in shops:
        groups[type_field(shop.type_id)].append(signals[shop.id])
        if shop.area:
            groups[area_field(shop.area)].append(signals[shop.id])
    lists = {
        field: formula.ranked(members, prior)[: settings.RANKING_TOP]
        for field, members in groups.items()
    }
    lists = {field: entries for field, entries in lists.items() if entries}
    badges = _badges(lists, by_id)
    changed = _save_badges(city_id, badges)
    for shop in shops:
        shop.rank = badges.get(shop.id)
    week, at = current_week(), clock.now().isoformat()
    documents = {shop.id: ShopDocumentSerializer(shop).data for shop in shops}
    mapping: dict[str, bytes] = {
        field: stored.encode(
            week=week,
            computed_at=at,
            entries=[(documents[s.shop_id], value) for s, value in entries],
        )
        for field, entries in lists.items()
    }
    mapping[META] = orjson.dumps(
        {
            "week": week,
            "computed_at": at,
            "type_ids": sorted(int(f[5:]) for f in lists if f.startswith("type:")),
            "areas": sorted(f[5:] for f in lists if f.startswith("area:")),
        }
    )
    _replace(city_id, mapping)
    shop_cache().evict_many(changed)  # after the lists: a page read between sees either
    log.info("rankings of city %s: %d lists, %d badges", city_id, len(lists), len(badges))
    return {field: [s.shop_id for s, _ in entries] for field, entries in lists.items()}


def _signals(shops: list[Shop]) -> dict[int, formula.Signals]:
    """Each shop's inputs: its row's reviewers and histogram, its saves in the window
    (Favourite rows), its unique visitors per day over the window (the traffic app's
    HyperLogLogs, one PFCOUNT each: pipelined on a single Redis)."""
    ids = [shop.id for shop in shops]
    since = clock.now() - timedelta(days=settings.RANKING_FAVOURITE_DAYS)
    saves = dict(
        Favourite.objects.filter(kind=Favourite.Kind.SHOP, object_id__in=ids, created_at__gte=since)
        .values("object_id")
        .annotate(n=Count("id"))
        .values_list("object_id", "n")
    )
    today = timezone.localdate(clock.now())
    days = [visits.local_day(today - timedelta(days=i)) for i in range(settings.RANKING_VIEW_DAYS)]
    uv_keys = [
        traffic_keys.visits_uv(visits.shop_subject(shop_id), day) for shop_id in ids for day in days
    ]
    counts = hyperloglog_counts(uv_keys) if ids else []
    per_shop = len(days)
    return {
        shop.id: formula.Signals(
            shop_id=shop.id,
            reviewers=shop.comments,
            ratings=(shop.rating_1, shop.rating_2, shop.rating_3, shop.rating_4, shop.rating_5),
            favourites=saves.get(shop.id, 0),
            visitors=sum(counts[i * per_shop : (i + 1) * per_shop]),
        )
        for i, shop in enumerate(shops)
    }


def _badges(
    lists: dict[str, list[tuple[formula.Signals, float]]], shops: dict[int, Shop]
) -> dict[int, dict[str, Any]]:
    """Each ranked shop's best place: the smallest rank; on a tie its district's list."""
    best: dict[int, tuple[tuple[int, int], dict[str, Any]]] = {}
    for field, entries in lists.items():
        by_area = field.startswith("area:")
        for rank, (signals, _) in enumerate(entries, start=1):
            shop = shops[signals.shop_id]
            badge = {
                "rank": rank,
                "list": shop.area if by_area else shop.type.name,
                "type_id": None if by_area else shop.type_id,
                "area": shop.area if by_area else None,
            }
            order = (rank, 0 if by_area else 1)
            if signals.shop_id not in best or order < best[signals.shop_id][0]:
                best[signals.shop_id] = (order, badge)
    return {shop_id: badge for shop_id, (_, badge) in best.items()}


def _save_badges(city_id: int, badges: dict[int, dict[str, Any]]) -> list[int]:
    """Write the badges that changed (and clear those of shops no longer ranked); the ids
    of the shops whose badge changed."""
    with transaction.atomic():
        current = dict(
            Shop.objects.select_for_update()
            .filter(city_id=city_id)
            .filter(rank__isnull=False)
            .values_list("id", "rank")
        )
        changed = [i for i in current.keys() | badges.keys() if current.get(i) != badges.get(i)]
        for shop_id in changed:
            Shop.objects.filter(pk=shop_id).update(rank=badges.get(shop_id))
    return sorted(changed)


def _replace(city_id: int, mapping: dict[str, bytes]) -> None:
    """The next hash written whole, then renamed over the live one, in one script (both
    keys share the city's tag; a Cluster's pipelines refuse RENAME): HMGET of a list and
    `meta` reads one computation's."""
    args: list[Any] = []
    for field, value in mapping.items():
        args += [field, value]
    live = keys.rankings(city_id)
    _REPLACE([redis_keys.rebuilding(live), live], args)
