"""The background machinery's one home: reset between tests, and a forked child that
starts with none of its parent's buffered work."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

from dianping import runtime
from dianping.redis import keys, visits
from dianping.redis.lock import RedisLock
from tests.helpers import wait_until


def _uv_pv(redis_client, subject: str) -> tuple[int, int]:
    day = visits.local_day()
    pv = redis_client.get(keys.visits_pv(subject, day))
    return redis_client.pfcount(keys.visits_uv(subject, day)), int(pv or 0)


def test_reset_writes_buffered_views_and_stops_watchdogs(redis_client) -> None:
    visits.record("shop:1", visits.Visitor("user:1"))
    lock = RedisLock("runtime-reset", ttl=3, watchdog=True)
    assert lock.acquire()

    runtime.reset()

    assert _uv_pv(redis_client, "shop:1") == (1, 1)  # written, not dropped
    wait_until(
        lambda: not [t for t in threading.enumerate() if t.name == "lock-watchdog:runtime-reset"],
        timeout=5,
    )


def test_a_forked_child_never_writes_its_parents_buffered_views(redis_client) -> None:
    runtime.reset()
    visits.record(
        "shop:2", visits.Visitor("user:1")
    )  # buffered in the parent (its flusher may run any time)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: flush whatever it holds, then leave at once
        try:
            visits.flush()
            os.write(write, b"ok")
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    assert os.read(read, 2) == b"ok"

    visits.flush()

    # Had the child inherited the buffer, it would have written the view a second time.
    assert _uv_pv(redis_client, "shop:2") == (1, 1)


def test_the_wsgi_entry_point_starts_the_background_parts() -> None:
    """A fresh process, as a server worker is (no thread of an earlier test can pass for
    one it started): importing the WSGI application starts the UV/PV flusher and the
    near cache's listener (the apps' near caches exist once Django is set up)."""
    code = (
        "import threading, dianping.wsgi\n"
        "names = {t.name for t in threading.enumerate()}\n"
        "assert {'visits-flusher', 'nearcache-tracker'} <= names, names\n"
        "print('ok')\n"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "dianping.settings.test"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )

    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
