"""Access to the Redis connection pools, owned by django-redis."""

from __future__ import annotations

import redis
from django.conf import settings
from django_redis import get_redis_connection

DEFAULT = "default"


def get_redis(alias: str = DEFAULT) -> redis.Redis:
    """The raw redis-py client (bytes in, bytes out) behind the cache `alias`.

    An alias the deployment did not configure is the default Redis: a part of the product
    may have a Redis of its own (the flash sale's SECKILL_REDIS_URL) without its callers
    knowing whether it does. django-redis keeps one pool per process and reconnects after
    a fork, so callers may fetch it on every use instead of holding it at import time.
    """
    return get_redis_connection(alias if alias in settings.CACHES else DEFAULT)


def has_own_redis(alias: str) -> bool:
    """Whether `alias` names a Redis of its own, not the default one."""
    return alias != DEFAULT and alias in settings.CACHES
