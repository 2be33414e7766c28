"""A Redis belongs to one database (decisions 291-294): each database has an identity,
every Redis the app writes carries the identity of the database it was written for,
and a process on another database refuses to serve from it, with the reason. The
drain's side (a sale's Redis emptied mid-run) is in tests/vouchers/test_heal.py."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import redis
from django.core.management import call_command
from django.core.management.base import CommandError

from accounts.models import User
from dianping.models import DatabaseIdentity
from tests.helpers import PrivateRedis, free_port
from tests.workers import ROOT, celery_env, current_database_url
from toolkit import identity
from toolkit.redis import keys

KEY = keys.db_identity()
REFUSED = "holds the data of another database"


def test_migrate_gives_the_database_its_identity(db) -> None:
    """The test database was made by migrate (and every flush since ran post_migrate):
    its identity is there before anyone asks for it, as on MariaDB in CI."""
    made = DatabaseIdentity.objects.get()

    assert identity.database_identity() == str(made.value)
    assert identity.database_identity() == str(made.value)  # made once, then read


def test_an_empty_redis_is_claimed_and_then_accepted_for_the_same_database(
    db, redis_client
) -> None:
    assert redis_client.get(KEY) is None  # emptied, as a new or flushed Redis is

    assert identity.verify() == {"default": True}  # claimed now
    assert redis_client.get(KEY).decode() == identity.database_identity()
    assert identity.verify() == {"default": False}  # this database's: accepted
    assert redis_client.get(KEY).decode() == identity.database_identity()


def test_a_redis_of_another_database_is_refused_and_left_as_it_was(db, redis_client) -> None:
    theirs = str(uuid.uuid4())
    redis_client.set(KEY, theirs)

    with pytest.raises(identity.RedisOfAnotherDatabase) as refused:
        identity.verify()

    message = str(refused.value)
    assert REFUSED in message
    assert theirs in message
    assert identity.database_identity() in message
    assert "REDIS_URL" in message
    assert "Redis holds another database's data" in message  # the runbook's section
    assert redis_client.get(KEY).decode() == theirs


def test_the_sale_s_own_redis_is_checked_too(db, redis_client, settings, tmp_path) -> None:
    """SECKILL_REDIS_URL's Redis (make run's 6392) carries the identity as well."""
    if settings.REDIS_CLUSTER:
        pytest.skip("the sale shares the Cluster (SECKILL_REDIS_URL is for a single Redis)")
    sale = PrivateRedis(tmp_path)
    sale.start()
    try:
        settings.CACHES = {
            **settings.CACHES,
            "seckill": {**settings.CACHES["default"], "LOCATION": sale.url},
        }
        assert identity.verify() == {"default": True, "seckill": True}
        sale.client().set(KEY, str(uuid.uuid4()))  # the sale's Redis alone is another's

        with pytest.raises(identity.RedisOfAnotherDatabase, match="SECKILL_REDIS_URL"):
            identity.verify()
    finally:
        sale.kill()


def test_seed_demo_refuses_a_redis_of_another_database_and_seeds_nothing(db, redis_client) -> None:
    redis_client.set(KEY, str(uuid.uuid4()))
    before = set(redis_client.scan_iter())

    with pytest.raises(CommandError, match=REFUSED):
        call_command("seed_demo", "--force")

    assert User.objects.count() == 0
    assert set(redis_client.scan_iter()) == before


@pytest.mark.slow
def test_processes_on_another_database_refuse_to_start_on_this_redis(
    transactional_db, redis_client, tmp_path
) -> None:
    """Two databases under one Redis, as after `make run` on SQLite then on MariaDB: the
    web, the worker, beat and the check command of the second stop with the reason and
    a failing status; the first database's are let through."""
    assert identity.verify() == {"default": True}  # this Redis is the test database's
    other = f"sqlite:///{tmp_path / 'other.sqlite3'}"
    env = celery_env(DATABASE_URL=other)
    # The identity's table is all a check reads.
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "dianping", "-v0"],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=120,
    )
    celery = [sys.executable, "-m", "celery", "-A", "dianping"]
    processes = {
        "check": ([sys.executable, "manage.py", "redis_identity"], 3),
        "web": ([sys.executable, "-c", "import dianping.wsgi"], 1),
        "worker": ([*celery, "worker", "--pool", "solo", "--without-heartbeat",
                    "--without-mingle", "--without-gossip"], 1),
        "beat": ([*celery, "beat", "--schedule", str(tmp_path / "beat-schedule")], 1),
    }  # fmt: skip
    for name, (command, status) in processes.items():
        done = subprocess.run(
            command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
        )
        output = done.stdout + done.stderr
        assert done.returncode == status, (name, output[-2000:])
        assert REFUSED in output, (name, output[-2000:])
        assert str(tmp_path / "other.sqlite3") in output, name  # which database it is

    ours = subprocess.run(
        [sys.executable, "manage.py", "redis_identity"],
        cwd=ROOT,
        env=celery_env(DATABASE_URL=current_database_url()),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ours.returncode == 0, ours.stderr
    assert "this database's" in ours.stdout
    assert redis_client.get(KEY).decode() == identity.database_identity()


def _redis_sh(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ROOT / "scripts" / "redis.sh"), *args],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow
def test_make_run_keeps_one_redis_data_directory_per_database(tmp_path) -> None:
    """scripts/redis.sh, as `make run` calls it (decision 294): on its port, the Redis of
    the DATABASE_URL at hand, with that database's data; another database's is stopped
    first, except under a make run that serves it; someone else's is left alone."""
    port = str(free_port())
    run = {"REDIS_PORT": port, "RUN_LOCK_HELD": "1"}  # as make run calls it
    first, second = f"sqlite:///{tmp_path / 'a.sqlite3'}", f"sqlite:///{tmp_path / 'b.sqlite3'}"
    client = redis.Redis(port=int(port))
    try:
        assert _redis_sh("ensure", "run", DATABASE_URL=first, **run).stdout == "started\n"
        client.set("written-for", "first")

        switched = _redis_sh("ensure", "run", DATABASE_URL=second, **run)
        assert switched.stdout == "started\n", switched.stderr
        assert "another database's" in switched.stderr
        assert client.get("written-for") is None  # the second database's own, empty
        client.set("written-for", "second")

        back = _redis_sh("ensure", "run", DATABASE_URL=first, **run)
        assert back.stdout == "started\n", back.stderr
        assert client.get("written-for") == b"first"  # the first one's data, back
        assert _redis_sh("ensure", "run", DATABASE_URL=first, **run).stdout == "running\n"
        dirs = [
            _redis_sh("dir", "run", DATABASE_URL=url, REDIS_PORT=port) for url in (first, second)
        ]
        assert dirs[0].stdout != dirs[1].stdout

        # Another command while make run serves (its lock held) never switches under it.
        (ROOT / "var").mkdir(exist_ok=True)
        with open(ROOT / "var" / "run.lock", "a") as held:
            with contextlib.suppress(BlockingIOError):  # a real make run may hold it already
                fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
            try:
                kept = _redis_sh("ensure", "run", DATABASE_URL=second, REDIS_PORT=port)
            finally:
                fcntl.flock(held, fcntl.LOCK_UN)
        assert kept.returncode == 1
        assert "make run serves" in kept.stderr
        assert client.get("written-for") == b"first"
    finally:
        _redis_sh("stop", "run", REDIS_PORT=port)
        shutil.rmtree(ROOT / "var" / f"redis-{port}", ignore_errors=True)

    elsewhere = PrivateRedis(tmp_path, port=int(port))  # not this checkout's
    elsewhere.start()
    try:
        refused = _redis_sh("ensure", "run", DATABASE_URL=first, **run)
        assert refused.returncode == 1
        assert "not this checkout's" in refused.stderr
        assert elsewhere.client().ping()
    finally:
        elsewhere.kill()
    assert not Path(ROOT / "var" / f"redis-{port}").exists()
