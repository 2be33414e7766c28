"""Real Celery worker processes for tests, on the test database and test Redis."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from django.db import connection

ROOT = Path(__file__).resolve().parent.parent


def worker_env(database_url: str) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "dianping.settings.test",
        "DATABASE_URL": database_url,
        "SECKILL_DRAIN_BATCH": "20",
        "SECKILL_DRAIN_LOOP_SECONDS": "30",
    }


def current_database_url() -> str:
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    return f"mysql://{db['USER']}:{db['PASSWORD']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


def unreachable_database_url() -> str:
    if connection.settings_dict["ENGINE"].endswith("sqlite3"):
        return "sqlite:////nonexistent-dir/db.sqlite3"
    return "mysql://nobody:nothing@127.0.0.1:1/nowhere"


def start_worker(database_url: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "dianping", "worker", "--pool", "solo",
         "--loglevel", "WARNING", "--without-heartbeat", "--without-mingle", "--without-gossip"],
        cwd=ROOT, env=worker_env(database_url), start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip


def kill(worker: subprocess.Popen, sig: int) -> None:
    os.killpg(worker.pid, sig)
    try:
        worker.wait(timeout=30)
    except subprocess.TimeoutExpired:  # never leave a worker behind on the test database
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(timeout=30)
