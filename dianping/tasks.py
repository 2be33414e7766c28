"""Platform housekeeping tasks."""

from __future__ import annotations

import time

from celery import shared_task

from dianping.redis import keys
from dianping.redis.client import get_redis


@shared_task(ignore_result=True)
def heartbeat() -> None:
    """Beat schedules it, a worker runs it: a fresh timestamp proves both are alive."""
    get_redis().set(keys.heartbeat(), repr(time.time()), ex=24 * 60 * 60)
