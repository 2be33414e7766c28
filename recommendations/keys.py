"""The recommendations' Redis keys ("guess you like"): histories, co-occurrences
and neighbours.

Every key is a row of docs/redis-keys.md (tests/toolkit/test_keys.py); the toolkit's
own keys and the conventions they share are in toolkit/redis/keys.py."""

from __future__ import annotations


def recs_history(user_id: int) -> str:
    """Sorted set: the shops a user last interacted with (saved, rated, liked a review
    of) -> time (ms); the newest `recommendations.model.HISTORY` kept."""
    return f"recs:hist:{{u{user_id}}}"


def recs_rated(user_id: int) -> str:
    """Set of the shops a user rated (mirrors their ShopRating rows): never suggested."""
    return f"recs:rated:{{u{user_id}}}"


def recs_counts(shop_id: int) -> str:
    """Hash: a shop's co-occurrence count with each of its kept neighbours."""
    return f"recs:co:{{s{shop_id}}}"


def recs_neighbours(shop_id: int) -> str:
    """Sorted set: a shop's strongest neighbours -> weight (cosine-like); shares the
    shop's tag with its counts, so one script changes both."""
    return f"recs:nb:{{s{shop_id}}}"


def recs_popularity() -> str:
    """Sorted set: shop -> how many users interacted with it (the weights' norm)."""
    return "recs:pop"


def recs_pattern() -> str:
    """SCAN pattern of every recommendations key (the rebuild deletes them)."""
    return "recs:*"
