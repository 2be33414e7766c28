"""A periodic task's last success, stamped in Redis for `/metrics` to read: any
app's beat-scheduled task calls `task_succeeded` at the end of a run without
importing the project root."""

from __future__ import annotations

import time

from toolkit.redis import keys
from toolkit.redis.client import get_redis

# How long a periodic task's last success is kept: far longer than any alert waits.
TASK_SUCCESS_TTL = 7 * 24 * 60 * 60


def task_succeeded(name: str) -> None:
    """Record that a run of the periodic task `name` (its beat entry) ended without an
    error, for /metrics (`dianping_periodic_task_last_success_timestamp_seconds`): a task
    that fails at every run, while the heartbeat shows workers alive, is seen there."""
    get_redis().set(keys.task_succeeded(name), repr(time.time()), ex=TASK_SUCCESS_TTL)
