"""The shop caches and indexes, configured once: detail cache, type and city list caches,
Bloom filter."""

from __future__ import annotations

from functools import cache

from django.conf import settings

from toolkit.redis import keys
from toolkit.redis.bloom import BloomFilter
from toolkit.redis.cache import CacheClient


@cache
def shop_bloom() -> BloomFilter:
    return BloomFilter(keys.bloom("shop-ids"), capacity=settings.SHOP_BLOOM_CAPACITY)


@cache
def shop_cache() -> CacheClient:
    return CacheClient(
        "shop",
        ttl=settings.SHOP_CACHE_TTL,
        null_ttl=settings.SHOP_CACHE_NULL_TTL,
        bloom=shop_bloom(),
        near_ttl=settings.SHOP_NEAR_CACHE_TTL,
        logical_ttl=settings.SHOP_PREHEAT_TTL,
        preheat_keep=settings.SHOP_PREHEAT_KEEP,
    )


@cache
def shop_type_cache() -> CacheClient:
    return CacheClient("shop-types", ttl=settings.SHOP_TYPE_CACHE_TTL)


def shop_types_ident(*, english: bool) -> str:
    """The type list's entry: one per language, as the names are (ShopType.name_en)."""
    return "all:en" if english else "all"


@cache
def city_cache() -> CacheClient:
    """The city list: read by every per-city request to resolve its `city`, so near copies
    make that resolution cost no round trip (decision 394)."""
    return CacheClient("cities", ttl=settings.CITY_CACHE_TTL, near_ttl=settings.SHOP_NEAR_CACHE_TTL)


def cities_ident(*, english: bool) -> str:
    """The city list's entry: one per language, and per default city, as the list marks it
    (so a changed DEFAULT_CITY is never read from an entry made under another)."""
    return f"{settings.DEFAULT_CITY}:en" if english else settings.DEFAULT_CITY
