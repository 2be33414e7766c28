"""The follows' Redis keys: whom each user follows.

Every key is a row of docs/redis-keys.md (tests/toolkit/test_keys.py); the toolkit's
own keys and the conventions they share are in toolkit/redis/keys.py."""

from __future__ import annotations


def following(user_id: int) -> str:
    """Set of the ids a user follows (mirrors the Follow rows)."""
    return f"follow:{{u{user_id}}}:following"


def following_pattern() -> str:
    """SCAN pattern of every `following` set (maintenance only)."""
    return "follow:{u*}:following"
