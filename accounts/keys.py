"""The accounts' Redis keys: login codes and tokens.

Every key is a row of docs/redis-keys.md (tests/toolkit/test_keys.py); the toolkit's
own keys and the conventions they share are in toolkit/redis/keys.py."""

from __future__ import annotations


def login_code(phone: str) -> str:
    """Hash {digest, attempts} of the live SMS login code for a phone."""
    return f"login:code:{phone}"


def login_token(token: str) -> str:
    """JSON of the public user data for a login token; TTL refreshed on every request."""
    return f"login:token:{token}"


def user_tokens(user_id: int) -> str:
    """Set of a user's login tokens (pruned at login), so all can be revoked at once."""
    return f"login:user-tokens:{user_id}"
