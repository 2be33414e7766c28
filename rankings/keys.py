"""The rankings' Redis keys: each city's weekly lists.

Every key is a row of docs/redis-keys.md (tests/toolkit/test_keys.py); the toolkit's
own keys and the conventions they share are in toolkit/redis/keys.py."""

from __future__ import annotations


def rankings(city_id: int) -> str:
    """Hash of a city's weekly rankings (rankings.services): field `meta` and one field per
    list (`type:<id>`, `area:<district>`), each as rankings.stored writes it; replaced at once by a
    RENAME of the complete next version, built at `toolkit.redis.keys.rebuilding` of it."""
    return f"rank:{{c{city_id}}}"
