"""A real Celery worker and a real beat start, talk through the Redis broker, and stop."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from dianping.redis import keys
from tests.helpers import wait_until

ROOT = Path(__file__).resolve().parent.parent


def _celery(*args: str, tmp_path: Path) -> subprocess.Popen:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "dianping.settings.test",
        "HEARTBEAT_INTERVAL": "0.5",
    }
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "dianping", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def _stop(process: subprocess.Popen) -> str:
    os.killpg(process.pid, signal.SIGTERM)
    try:
        output, _ = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
    return output.decode(errors="replace")


@pytest.mark.slow
def test_beat_schedules_the_heartbeat_and_a_worker_runs_it(redis_client, tmp_path) -> None:
    worker = _celery("worker", "--pool", "solo", "--loglevel", "INFO", tmp_path=tmp_path)
    beat = _celery(
        "beat", "--loglevel", "INFO", "--schedule", str(tmp_path / "beat"), tmp_path=tmp_path
    )
    try:
        first = float(wait_until(lambda: redis_client.get(keys.heartbeat()), timeout=60))
        # A second, later beat proves the schedule repeats, not a one-off.
        wait_until(lambda: float(redis_client.get(keys.heartbeat()) or 0) > first, timeout=30)
    finally:
        worker_log, beat_log = _stop(worker), _stop(beat)
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
