"""The background machinery's one home: reset between tests, and what the WSGI entry
point starts (the visits buffer's reset and fork: tests/traffic/test_visits.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

from tests.helpers import wait_until
from toolkit import runtime
from toolkit.redis.lock import RedisLock


def test_reset_stops_watchdogs(redis_client) -> None:
    lock = RedisLock("runtime-reset", ttl=3, watchdog=True)
    assert lock.acquire()

    runtime.reset()

    wait_until(
        lambda: not [t for t in threading.enumerate() if t.name == "lock-watchdog:runtime-reset"],
        timeout=5,
    )


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
