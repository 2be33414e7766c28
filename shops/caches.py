"""The shop caches and indexes, configured once: detail cache, type list cache, Bloom filter."""

from __future__ import annotations

from functools import cache

from django.conf import settings

from dianping.redis import keys
from dianping.redis.bloom import BloomFilter
from dianping.redis.cache import CacheClient


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
    )


@cache
def shop_type_cache() -> CacheClient:
    return CacheClient("shop-types", ttl=settings.SHOP_TYPE_CACHE_TTL)


def shop_types_ident(*, english: bool) -> str:
    """The type list's entry: one per language, as the names are (ShopType.name_en)."""
    return "all:en" if english else "all"
