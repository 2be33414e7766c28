"""A real Celery worker and a real beat start, talk through the Redis broker, and stop."""

from __future__ import annotations

import pytest

from tests.helpers import wait_until
from tests.workers import celery_env, kill, start_celery
from toolkit.redis import keys


@pytest.mark.slow
def test_beat_schedules_the_heartbeat_and_a_worker_runs_it(redis_client, tmp_path) -> None:
    env = celery_env(HEARTBEAT_INTERVAL="0.5")
    worker = start_celery("worker", "--pool", "solo", "--loglevel", "INFO", env=env, capture=True)
    beat = start_celery(
        "beat", "--loglevel", "INFO", "--schedule", str(tmp_path / "beat"), env=env, capture=True
    )
    try:
        first = float(wait_until(lambda: redis_client.get(keys.heartbeat()), timeout=60))
        # A second, later beat proves the schedule repeats, not a one-off.
        wait_until(lambda: float(redis_client.get(keys.heartbeat()) or 0) > first, timeout=30)
    finally:
        worker_log, beat_log = kill(worker), kill(beat)
    assert "dianping.tasks.heartbeat" in worker_log
    assert "Scheduler: Sending due task heartbeat" in beat_log
    assert worker.returncode is not None
    assert beat.returncode is not None


def test_celery_speaks_json_only_with_time_limits() -> None:
    from dianping.celery import app

    assert app.conf.accept_content == ["json"]
    assert app.conf.task_serializer == "json"
    assert app.conf.task_time_limit
    assert app.conf.task_soft_time_limit
    assert app.conf.task_acks_late
