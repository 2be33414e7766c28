"""Access to the one Redis connection pool, owned by django-redis."""

from __future__ import annotations

import redis
from django_redis import get_redis_connection


def get_redis() -> redis.Redis:
    """The raw redis-py client (bytes in, bytes out) behind the default cache.

    django-redis keeps one pool per process and reconnects after a fork, so
    callers may fetch it on every use instead of holding it at import time.
    """
    return get_redis_connection("default")
