"""Platform housekeeping tasks."""

from __future__ import annotations

import time
from typing import Any

from celery import shared_task
from django.conf import settings

from toolkit.redis import keys
from toolkit.redis.client import get_redis


@shared_task(ignore_result=True)
def heartbeat() -> None:
    """Beat schedules it, a worker runs it: a fresh timestamp proves both are alive."""
    get_redis().set(keys.heartbeat(), repr(time.time()), ex=24 * 60 * 60)


def heartbeat_health() -> tuple[dict[str, Any], bool]:
    """/api/health's view of beat and the workers: stalled when the heartbeat is older
    than three of its intervals. A heartbeat never seen (a fresh install, or a day
    without beat) is reported as null and not held against the web process."""
    age = heartbeat_age()
    stalled = age is not None and age > worker_stall_seconds()
    return {"heartbeat_age_seconds": age, "worker": "stalled" if stalled else "ok"}, not stalled


def heartbeat_age() -> float | None:
    """Seconds since a worker last ran the heartbeat (None: never seen in a day)."""
    beat = get_redis().get(keys.heartbeat())
    return round(time.time() - float(beat), 1) if beat else None


def worker_stall_seconds() -> float:
    """How old the heartbeat may grow before health (and the alert) call workers stalled."""
    return 3 * settings.HEARTBEAT_INTERVAL
