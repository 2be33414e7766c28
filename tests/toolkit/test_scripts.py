"""Lua scripts compile, run by SHA and survive a script-cache flush."""

from __future__ import annotations

import accounts.services  # noqa: F401  registers its scripts
import dianping.redis.lock
import dianping.redis.ratelimit  # noqa: F401
from dianping.redis.lock import RedisLock
from dianping.redis.scripts import all_scripts, load_all


def test_every_script_compiles(redis_client) -> None:
    shas = load_all()

    assert len(shas) == len(all_scripts()) >= 6
    assert all(redis_client.script_exists(sha)[0] for sha in shas)


def test_scripts_reload_after_redis_forgets_them(redis_client) -> None:
    lock = RedisLock("noscript", ttl=5)
    assert lock.acquire()
    redis_client.script_flush()

    assert lock.release()  # EVALSHA gets NOSCRIPT, the source is loaded again, it runs
    assert not lock.locked()
