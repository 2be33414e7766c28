"""The shops' Redis keys: the GEO sets of nearby search.

Every key is a row of docs/redis-keys.md (tests/toolkit/test_keys.py); the toolkit's
own keys and the conventions they share are in toolkit/redis/keys.py."""

from __future__ import annotations


def geo_shops(city_id: int, type_id: int) -> str:
    """GEO set of the shop ids of one type in one city (decision 393); the rebuild key
    shares its hash tag, and the sets of a city spread over the slots like those of types."""
    return f"geo:shops:{{{city_id}:{type_id}}}"


def geo_shops_pattern() -> str:
    """SCAN pattern matching every GEO set of shops (for removing the sets nothing fills)."""
    return "geo:shops:{*}"


def geo_shops_per_type_pattern() -> str:
    """SCAN pattern of the per-type GEO sets of before cities, which the rebuild removes."""
    return "geo:shop-type:{*}"
