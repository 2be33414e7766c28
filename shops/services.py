"""Shop writes. Every write path (API, admin, commands) comes through here, so the
cache entry, the GEO index and the Bloom filter follow the database, and only
after the transaction commits: a rolled-back write touches no cache."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from tqdm import tqdm

from dianping.errors import NotFound
from dianping.redis import keys
from dianping.redis.client import get_redis

from .caches import SHOP_TYPES_IDENT, shop_bloom, shop_cache, shop_type_cache
from .models import Shop, ShopType

_GEO_BATCH = 1000


def shop_save(*, shop: Shop) -> Shop:
    """Insert or update `shop`, then re-sync its cache, GEO entry and Bloom bit on commit."""
    with transaction.atomic():
        old_type_id = (
            Shop.objects.filter(pk=shop.pk).values_list("type_id", flat=True).first()
            if shop.pk
            else None
        )
        shop.save()
        shop_id, type_id, x, y = shop.pk, shop.type_id, shop.x, shop.y
        transaction.on_commit(lambda: _after_save(shop_id, type_id, old_type_id, x, y))
    return shop


def shop_delete(*, shop_id: int) -> None:
    with transaction.atomic():
        shop = Shop.objects.filter(pk=shop_id).first()
        if shop is None:
            raise NotFound("No such shop.", code="shop_not_found")
        type_id = shop.type_id
        shop.delete()
        transaction.on_commit(lambda: _after_delete(shop_id, type_id))


def _after_save(shop_id: int, type_id: int, old_type_id: int | None, x: float, y: float) -> None:
    pipe = get_redis().pipeline(transaction=False)
    if old_type_id is not None and old_type_id != type_id:
        pipe.zrem(keys.geo_shops(old_type_id), shop_id)
    pipe.geoadd(keys.geo_shops(type_id), [x, y, shop_id])
    pipe.execute()
    shop_bloom().add([str(shop_id)])
    # Evict last: a reader that refills the cache now reads the committed row.
    shop_cache().evict(shop_id)


def _after_delete(shop_id: int, type_id: int) -> None:
    # A Bloom filter cannot forget; the null marker covers deleted ids instead.
    get_redis().zrem(keys.geo_shops(type_id), shop_id)
    shop_cache().evict(shop_id)


def shop_type_save(*, shop_type: ShopType) -> ShopType:
    with transaction.atomic():
        shop_type.save()
        transaction.on_commit(shop_types_changed)
    return shop_type


def shop_type_delete(*, shop_type: ShopType) -> None:
    with transaction.atomic():
        type_id = shop_type.pk
        shop_type.delete()  # PROTECT: refuses while the type still has shops

        def after() -> None:
            get_redis().delete(keys.geo_shops(type_id))
            shop_types_changed()

        transaction.on_commit(after)


def shop_types_changed() -> None:
    """Drop the cached type list (after bulk imports that bypass shop_type_save)."""
    shop_type_cache().evict(SHOP_TYPES_IDENT)


def shop_geo_rebuild(*, progress: bool = False) -> dict[int, int]:
    """Rebuild every type's GEO set from the database; returns {type_id: shops indexed}.

    Each set is built under a temporary key and swapped in with RENAME, so
    readers see the old index or the new one, never a half-built one; sets of
    deleted types are removed. Safe to re-run at any time.
    """
    client = get_redis()
    counts: dict[int, int] = {}
    type_ids = list(ShopType.objects.values_list("id", flat=True))
    total = Shop.objects.count()
    bar = tqdm(total=total, unit="shop", disable=not progress, desc="GEO index")
    for type_id in type_ids:
        final = keys.geo_shops(type_id)
        tmp = f"{final}:rebuild"
        client.delete(tmp)
        rows = Shop.objects.filter(type_id=type_id).order_by("id").values_list("id", "x", "y")
        counts[type_id] = 0
        for batch in _batches(rows.iterator(chunk_size=_GEO_BATCH), _GEO_BATCH):
            client.geoadd(tmp, [value for row in batch for value in (row[1], row[2], row[0])])
            counts[type_id] += len(batch)
            bar.update(len(batch))
        if counts[type_id]:
            client.rename(tmp, final)
        else:
            client.delete(final)
    bar.close()
    live = {keys.geo_shops(type_id) for type_id in type_ids}
    for key in client.scan_iter(match=keys.geo_shops_pattern(), count=500):
        name = key.decode()
        if name not in live and not name.endswith(":rebuild"):
            client.delete(name)
    return counts


def shop_bloom_rebuild() -> int:
    """Rebuild the Bloom filter of shop ids from the database; returns how many ids."""
    ids = Shop.objects.order_by("id").values_list("id", flat=True).iterator(chunk_size=10_000)
    return shop_bloom().rebuild(str(i) for i in ids)


def _batches(rows: Iterable[tuple], size: int) -> Iterable[list[tuple]]:
    batch: list[tuple] = []
    for row in rows:
        batch.append(row)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch
