"""Lua scripts compile, run by SHA and survive a script-cache flush."""

from __future__ import annotations

import accounts.services  # noqa: F401  registers its scripts
import toolkit.redis.lock
import toolkit.redis.ratelimit  # noqa: F401
from toolkit.redis.cache import CacheClient
from toolkit.redis.lock import RedisLock
from toolkit.redis.scripts import all_scripts, load_all


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


def test_a_batch_of_calls_reloads_after_redis_forgets_the_script(redis_client) -> None:
    cache = CacheClient("t-noscript", ttl=60)
    cache.lookup_many([1], lambda missing: dict.fromkeys(missing, 1))  # the script loaded
    redis_client.script_flush()

    cache.lookup_many([2, 3], lambda missing: dict.fromkeys(missing, 1))  # stored by it

    assert [redis_client.get(cache.key(i)) for i in (2, 3)] == [b"1", b"1"]
