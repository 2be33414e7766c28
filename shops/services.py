"""Shop writes. Every write path (API, admin, commands) comes through here, so the
cache entry, the GEO index and the Bloom filter follow the database, and only
after the transaction commits: a rolled-back write touches no cache."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any, cast

from django.conf import settings
from django.db import transaction
from django.db.models import ProtectedError
from django.utils import timezone
from django.utils.translation import gettext
from tqdm import tqdm

from search import tasks as search_tasks
from toolkit.bulk import batched
from toolkit.errors import Conflict
from toolkit.redis import keys as toolkit_keys
from toolkit.redis.client import get_redis
from toolkit.redis.lock import RedisLock

from . import hours as opening_hours
from . import keys
from .caches import (
    cities_ident,
    city_cache,
    shop_bloom,
    shop_cache,
    shop_type_cache,
    shop_types_ident,
)
from .cities import default_city_id
from .errors import CityNotFound, Code, ShopNotFound
from .models import City, Shop, ShopType
from .scores import mean_x10
from .signals import shop_moved

log = logging.getLogger(__name__)

_GEO_BATCH = 1000
# Re-apply writes from this long before a rebuild began: covers transactions that
# saved a row (stamping updated_at) shortly before the rebuild and committed during it.
_CATCH_UP_MARGIN = timedelta(minutes=5)


def shop_save(*, shop: Shop, fields: list[str] | None = None) -> Shop:
    """Insert `shop`, or update it (only `fields`, when given); then, after commit,
    re-sync its cache entry, GEO entry and Bloom bit from the committed row. A new shop
    without a city is in the default city (409 `city_not_found` when there is none).

    The row is locked while it is updated, so concurrent edits serialise and an
    edit racing a delete fails with 404 instead of re-inserting the shop.
    """
    if fields is not None and not fields:
        return shop  # nothing to change: no write, no index churn
    if shop.hours is not None and (fields is None or {"hours", "open_hours"} & set(fields)):
        # Older clients read the text: while there are structured hours, it follows them.
        shop.open_hours = opening_hours.summary(shop.hours)
        if fields is not None and "open_hours" not in fields:
            fields = [*fields, "open_hours"]
    if shop.pk is None and shop.city_id is None:
        city_id = default_city_id()
        if city_id is None:
            raise Conflict(str(CityNotFound.default_detail), code=Code.CITY_NOT_FOUND)
        shop.city_id = city_id
    with transaction.atomic():
        old: tuple[int, int] | None = None  # (city, type) before the update
        if shop.pk is not None:
            old = (
                Shop.objects.select_for_update()
                .filter(pk=shop.pk)
                .values_list("city_id", "type_id")
                .first()
            )
            if old is None:
                raise ShopNotFound()
            update_fields = [*fields, "updated_at"] if fields is not None else None
            shop.save(force_update=True, update_fields=update_fields)
            if old[0] != shop.city_id and (fields is None or "city" in fields):
                shop_moved.send(Shop, shop_id=shop.pk, old_city_id=old[0], city_id=shop.city_id)
        else:
            shop.save(force_insert=True)
        shop_id = shop.pk
        transaction.on_commit(lambda: shop_indexes_sync(shop_id, old), robust=True)
        search_tasks.refresh_on_commit("shops", shop_id)
    return shop


def shop_hours_set(*, shop_id: int, hours: Any) -> Shop:
    """Set a shop's structured opening hours (shops/hours.py's format; None removes them):
    validated and normalised (InvalidHours, a 400, names the first problem), saved with the
    `open_hours` text derived from them, and every cached copy of the shop evicted after
    commit, as any shop write. For whoever runs the shop (the owner's endpoint, the admin)."""
    normal = None if hours is None else opening_hours.validate(hours)
    shop = Shop.objects.filter(pk=shop_id).first()
    if shop is None:
        raise ShopNotFound()
    shop.hours = normal
    return shop_save(shop=shop, fields=["hours"])


def shop_delete(*, shop_id: int) -> None:
    with transaction.atomic():
        shop = Shop.objects.select_for_update().filter(pk=shop_id).first()
        if shop is None:
            raise ShopNotFound()
        where = (shop.city_id, shop.type_id)
        try:
            shop.delete()
        except ProtectedError:
            raise Conflict(
                gettext("The shop has vouchers or orders; remove or move them first."),
                code=Code.SHOP_IN_USE,
            ) from None
        transaction.on_commit(lambda: shop_indexes_sync(shop_id, where), robust=True)
        search_tasks.refresh_on_commit("shops", shop_id)


def review_stats_save(
    *,
    shop_id: int,
    reviews: int,
    histogram: dict[int, int],
    sub_scores: dict[str, tuple[int, int]],
) -> bool:
    """Store a shop's review count, rating histogram ({stars: ratings}) and the score
    they give, and its sub-scores ({name: (stars added up, ratings that gave it)}),
    counted by the review services (blogs.reviews) under the shop's row lock; the cached
    shop is evicted after commit. False when the shop is gone."""
    fields: dict[str, int] = {f"rating_{stars}": n for stars, n in histogram.items()}
    for name, (total, count) in sub_scores.items():
        fields[f"{name}_sum"], fields[f"{name}_count"] = total, count
    with transaction.atomic():
        if not Shop.objects.filter(pk=shop_id).update(
            **fields, comments=reviews, score=score_of(histogram)
        ):
            return False
        transaction.on_commit(lambda: shop_cache().evict(shop_id), robust=True)
    return True


def sold_save(*, sold: dict[int, int]) -> None:
    """Store shops' counts of paid coupons ({shop id: count}, counted by vouchers.coupons.sold);
    their cached documents are evicted after commit."""
    with transaction.atomic():
        for shop_id, count in sorted(sold.items()):  # rows in id order, as review writers
            Shop.objects.filter(pk=shop_id).exclude(sold=count).update(sold=count)
        transaction.on_commit(lambda: shop_cache().evict_many(list(sold)), robust=True)


def score_of(histogram: dict[int, int]) -> int:
    """The mean of the ratings x10, rounded half up (4.25 → 43); 0 when there are none.
    Integer arithmetic: the same answer on every database and in every process."""
    total = sum(stars * n for stars, n in histogram.items())
    return mean_x10(total, sum(histogram.values())) or 0


def shop_indexes_sync(shop_id: int, old: tuple[int, int] | None) -> None:
    """Make Redis agree with the committed row (or its absence); `old` is the (city, type)
    the shop had before the write, whose GEO set it leaves if that changed.

    Runs after commit, robustly: a Redis failure here is logged, never turned into
    an error for a write that already succeeded; `load_shop_geo` repairs the
    indexes. The cache entry goes first, as it is what readers see, then, in one
    round trip, the Bloom bit (without it a new shop would answer 404) and the
    GEO entry. Syncs of one shop take a lock, so one that read an older row
    cannot apply it after a newer one.
    """
    shop_cache().evict(shop_id)
    with RedisLock(f"shop-sync:{shop_id}", ttl=10, wait=10):
        row = Shop.objects.filter(pk=shop_id).values("city_id", "type_id", "x", "y").first()
        now = (row["city_id"], row["type_id"]) if row is not None else None
        pipe = get_redis().pipeline(transaction=False)
        if row is not None:
            shop_bloom().queue_add(pipe, [str(shop_id)])
        if old is not None and old != now:
            pipe.zrem(keys.geo_shops(*old), shop_id)
        if row is not None:
            pipe.geoadd(
                keys.geo_shops(row["city_id"], row["type_id"]), [row["x"], row["y"], shop_id]
            )
        pipe.execute()


def shop_type_save(*, shop_type: ShopType) -> ShopType:
    with transaction.atomic():
        shop_type.save()
        transaction.on_commit(shop_types_changed, robust=True)
    return shop_type


def shop_type_delete(*, shop_type: ShopType) -> None:
    with transaction.atomic():
        type_id = shop_type.pk
        try:
            shop_type.delete()
        except ProtectedError:
            raise Conflict(
                gettext("Shops still have this type; move them first."),
                code=Code.SHOP_TYPE_IN_USE,
            ) from None

        def after() -> None:
            _geo_delete(keys.geo_shops(city_id, type_id) for city_id in _city_ids())
            shop_types_changed()

        transaction.on_commit(after, robust=True)


def shop_types_changed() -> None:
    """Drop the cached type list (after bulk imports that bypass shop_type_save)."""
    for english in (False, True):
        shop_type_cache().evict(shop_types_ident(english=english))


def city_save(*, city: City) -> City:
    """Add or edit a city (the admin); the cached city list goes after commit."""
    with transaction.atomic():
        city.save()
        transaction.on_commit(cities_changed, robust=True)
    return city


def city_delete(*, city: City) -> None:
    """Delete a city no shop is in (409 `city_in_use` otherwise)."""
    with transaction.atomic():
        city_id = city.pk
        try:
            city.delete()
        except ProtectedError:
            raise Conflict(
                gettext("Shops are still in this city; move them first."),
                code=Code.CITY_IN_USE,
            ) from None

        def after() -> None:
            type_ids = ShopType.objects.values_list("id", flat=True)
            _geo_delete(keys.geo_shops(city_id, type_id) for type_id in type_ids)
            cities_changed()

        transaction.on_commit(after, robust=True)


def cities_changed() -> None:
    """Drop the cached city list, each language's (after imports that bypass city_save)."""
    for english in (False, True):
        city_cache().evict(cities_ident(english=english))


def _city_ids() -> list[int]:
    return list(City.objects.values_list("id", flat=True))


def _geo_delete(geo_keys: Iterable[str]) -> None:
    """DEL each key apart, pipelined: on a Cluster the keys are in different slots."""
    pipe = get_redis().pipeline(transaction=False)
    for key in geo_keys:
        pipe.delete(key)
    pipe.execute()


def shop_indexes_rebuild(*, progress: bool = False) -> tuple[dict[Where, int], int]:
    """Rebuild the GEO sets and the Bloom filter; returns (GEO counts per (city, type) set,
    Bloom ids).

    Runs under a lock, so two rebuilds (two replicas starting, cron and a manual
    run) never share their temporary keys.
    """
    with RedisLock("shop-index-rebuild", ttl=60, watchdog=True, wait=600):
        return shop_geo_rebuild(progress=progress), shop_bloom_rebuild()


Where = tuple[int, int]  # (city id, type id): the shops of one GEO set


def shop_geo_rebuild(*, progress: bool = False) -> dict[Where, int]:
    """Rebuild the GEO set of every city and type that has shops from the database;
    returns {(city_id, type_id): shops indexed}.

    Each set is built under a temporary key and swapped in with RENAME, so
    readers see the old index or the new one, never a half-built one. Writes
    that land while it runs go to the old sets and would vanish with the swap,
    so shops changed since shortly before the start are re-applied afterwards.
    Then no set holds what it should not: those of a city or type that is gone (and the
    per-type sets of before cities) are removed, and one that no shop is in any more
    keeps only members that are in it now. Safe to re-run at any time.
    """
    client = get_redis()
    started = timezone.now()
    counts: dict[Where, int] = {}
    bar = tqdm(total=Shop.objects.count(), unit="shop", disable=not progress, desc="GEO index")
    for where in _filled_sets():
        final = keys.geo_shops(*where)
        tmp = toolkit_keys.rebuilding(final)
        client.delete(tmp)
        rows = (
            Shop.objects.filter(city_id=where[0], type_id=where[1])
            .order_by("id")
            .values_list("id", "x", "y")
        )
        counts[where] = 0
        for batch in batched(rows.iterator(chunk_size=_GEO_BATCH), _GEO_BATCH):
            client.geoadd(tmp, [value for row in batch for value in (row[1], row[2], row[0])])
            counts[where] += len(batch)
            bar.update(len(batch))
        if counts[where]:
            client.rename(tmp, final)
        else:  # its last shop left meanwhile: what it holds, the pruning below judges
            client.delete(tmp)
    bar.close()
    # Read again, not reused: a shop added while this ran may have filled another set.
    filled = set(_filled_sets())
    _geo_catch_up(since=started - _CATCH_UP_MARGIN, sets=filled | set(counts))
    _geo_prune(filled)
    return counts


def _filled_sets() -> list[Where]:
    """The (city, type) of every GEO set some shop is in, in order."""
    rows = Shop.objects.order_by("city_id", "type_id").values_list("city_id", "type_id")
    return list(rows.distinct())


def _geo_catch_up(*, since: datetime, sets: set[Where]) -> None:
    """Shops written since `since` into their own set, and out of every other one."""
    recent = Shop.objects.filter(updated_at__gte=since).values_list(
        "id", "city_id", "type_id", "x", "y"
    )
    client = get_redis()
    pipe = client.pipeline(transaction=False)
    for shop_id, city_id, type_id, x, y in recent.iterator(chunk_size=_GEO_BATCH):
        for other in sets - {(city_id, type_id)}:
            pipe.zrem(keys.geo_shops(*other), shop_id)
        pipe.geoadd(keys.geo_shops(city_id, type_id), [x, y, shop_id])
        if len(pipe) >= _GEO_BATCH:
            pipe.execute()
    pipe.execute()


def _geo_prune(filled: set[Where]) -> None:
    """Remove the sets no shop should be in: of a city or type that is gone, or of before
    cities. A set of a city and type that both exist but had no shop when `filled` was
    read keeps the members the database puts there now (a shop may have moved in since)."""
    client = get_redis()
    live = {keys.geo_shops(*where) for where in filled}
    type_ids = list(ShopType.objects.values_list("id", flat=True))
    known = {
        keys.geo_shops(city_id, type_id): (city_id, type_id)
        for city_id in _city_ids()
        for type_id in type_ids
    }
    for pattern in (keys.geo_shops_pattern(), keys.geo_shops_per_type_pattern()):
        for raw in client.scan_iter(match=pattern, count=500):
            key = raw.decode()
            if key in live:
                continue
            where = known.get(key)
            if where is None:
                client.delete(key)
                continue
            members = [int(m) for m in cast(list[bytes], client.zrange(key, 0, -1))]
            for batch in batched(members, _GEO_BATCH):
                there = set(
                    Shop.objects.filter(
                        pk__in=batch, city_id=where[0], type_id=where[1]
                    ).values_list("id", flat=True)
                )
                gone = [m for m in batch if m not in there]
                if gone:
                    client.zrem(key, *gone)


def shop_bloom_rebuild(*, capacity: int | None = None) -> int:
    """Rebuild the Bloom filter of shop ids from the database (at `capacity`, or the size
    it has); returns how many ids.

    Writes from the rebuild's start land in both bitmaps and the scan starts after it, so
    no id is missing at the switch (decision 490); the ids written shortly before are
    added again afterwards all the same, as cheap insurance.
    """
    started = timezone.now()
    ids = Shop.objects.order_by("id").values_list("id", flat=True).iterator(chunk_size=10_000)
    count = shop_bloom().rebuild((str(i) for i in ids), capacity=capacity)
    recent = Shop.objects.filter(updated_at__gte=started - _CATCH_UP_MARGIN)
    shop_bloom().add(str(i) for i in recent.values_list("id", flat=True))
    return count


def shop_bloom_watch() -> dict[str, int]:
    """Rebuild the shop-id Bloom filter at SHOP_BLOOM_GROWTH times its capacity (at
    least enough for its ids at half fill) once its estimated fill passes
    SHOP_BLOOM_REBUILD_FILL, before its false-positive rate climbs (decision 491); drop
    stray old bitmaps. For the beat job `preheat-hot-shops`."""
    bloom = shop_bloom()
    stats = bloom.stats()
    rebuilt = 0
    if stats.fill >= settings.SHOP_BLOOM_REBUILD_FILL:
        count = Shop.objects.count()
        capacity = max(stats.capacity * settings.SHOP_BLOOM_GROWTH, 2 * count, 1)
        shop_bloom_rebuild(capacity=int(capacity))
        log.warning(
            "shop Bloom filter rebuilt at capacity %d (fill was %.2f)", capacity, stats.fill
        )
        rebuilt = 1
    return {"bloom_rebuilt": rebuilt, "bloom_strays": bloom.drop_strays()}
