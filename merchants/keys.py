"""The merchants' Redis keys: a shop's dashboard numbers that no longer change
(merchants/dashboard_cache.py); the keys of a shop share its tag {d<shop_id>}, for the
store script.

Every key is a row of docs/redis-keys.md (tests/toolkit/test_keys.py); the toolkit's
own keys and the conventions they share are in toolkit/redis/keys.py."""

from __future__ import annotations


def dashboard_days(shop_id: int) -> str:
    """Hash YYYY-MM-DD -> "claims,sales,redemptions" of a shop's closed local days."""
    return f"dashboard:{{d{shop_id}}}:days"


def dashboard_ratings(shop_id: int) -> str:
    """Hash YYYY-MM-DD -> "reviews,stars" (how many, their stars summed) of the reviews
    written on each of a shop's closed local days: its weekly rating trend's parts."""
    return f"dashboard:{{d{shop_id}}}:ratings"


def dashboard_version(shop_id: int) -> str:
    """Counter bumped by every eviction from a shop's dashboard hashes: numbers loaded
    before it moved are not stored."""
    return f"dashboard:{{d{shop_id}}}:ver"
