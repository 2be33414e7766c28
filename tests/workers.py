"""Real Celery processes (workers, beat) for tests, on the test database and test Redis."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import IO

import redis
from django.conf import settings
from django.db import connection

from toolkit.redis import keys
from toolkit.redis.client import get_redis

ROOT = Path(__file__).resolve().parent.parent


def celery_env(**extra: str) -> dict[str, str]:
    """The environment of a Celery process on the test settings, plus `extra`."""
    return {**os.environ, "DJANGO_SETTINGS_MODULE": "dianping.settings.test", **extra}


def worker_env(database_url: str) -> dict[str, str]:
    return celery_env(
        DATABASE_URL=database_url, SECKILL_DRAIN_BATCH="20", SECKILL_DRAIN_LOOP_SECONDS="30"
    )


def current_database_url() -> str:
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    return f"mysql://{db['USER']}:{db['PASSWORD']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


def unreachable_database_url() -> str:
    if connection.settings_dict["ENGINE"].endswith("sqlite3"):
        return "sqlite:////nonexistent-dir/db.sqlite3"
    return "mysql://nobody:nothing@127.0.0.1:1/nowhere"


def forget_database_identity(env: dict[str, str] | None = None) -> None:
    """Let the process about to start on `env` claim its Redis for the test database as
    it is now. The database's identity changes at every flush (a transactional test's
    teardown), and a Redis the tests share may still carry the one an earlier test's
    process claimed; a process would then rightly refuse it (decision 292)."""
    env = env or {}
    urls = {env.get("REDIS_URL") or settings.REDIS_URL, env.get("SECKILL_REDIS_URL") or ""}
    for url in urls - {""}:
        # The suite's own Redis (a Cluster in the Cluster run) through its client.
        client = get_redis() if url == settings.REDIS_URL else redis.Redis.from_url(url)
        client.delete(keys.db_identity())


def start_celery(
    *args: str, env: dict[str, str] | None = None, capture: bool = False, log: Path | None = None
) -> subprocess.Popen:
    """`celery -A dianping <args>` in its own process group; `capture` keeps its output for
    `kill` to return, `log` appends it to a file, otherwise it is discarded. The queue of
    the test broker is emptied first: on a Cluster
    run the broker is a Redis database no test flushes, and messages earlier tests left
    there (even earlier runs': it keeps an AOF) would make the new worker work through
    them before reaching the test's own."""
    from dianping.celery import app

    app.control.purge()
    # And what killed workers of earlier tests left unacknowledged: kombu would hand it
    # to this worker once its visibility timeout passed, in the middle of its test.
    redis.Redis.from_url(app.conf.broker_url).delete("unacked", "unacked_index")
    forget_database_identity(env)
    stdout: int | IO[bytes]
    stdout, stderr = (subprocess.PIPE, subprocess.STDOUT) if capture else (subprocess.DEVNULL,) * 2
    if log is not None:
        stdout, stderr = log.open("ab"), subprocess.STDOUT
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "dianping", *args],
        cwd=ROOT,
        env=celery_env() if env is None else env,
        start_new_session=True,
        stdout=stdout,
        stderr=stderr,
    )


def start_worker(database_url: str, log: Path | None = None, **settings: str) -> subprocess.Popen:
    """A solo-pool worker on `database_url`, its output appended to `log` if given;
    `settings` override env-read settings."""
    return start_celery(
        "worker",
        "--pool",
        "solo",
        "--loglevel",
        "WARNING",
        "--without-heartbeat",
        "--without-mingle",
        "--without-gossip",
        env={**worker_env(database_url), **settings},
        log=log,
    )


def kill(process: subprocess.Popen, sig: int = signal.SIGTERM) -> str:
    """Signal the process group and wait for it; returns the captured output, if any."""
    os.killpg(process.pid, sig)
    try:
        output, _ = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:  # never leave a worker behind on the test database
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate(timeout=30)
    return (output or b"").decode(errors="replace")
