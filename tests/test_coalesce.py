"""Auto-pipelining (dianping/redis/coalesce.py) against the real Redis: calls made at the
same moment by many threads share round trips, and each still gets its own reply."""

from __future__ import annotations

import pytest
import redis

from dianping.redis import coalesce, scripts
from dianping.redis.client import get_redis
from dianping.redis.cluster import is_cluster
from tests.helpers import run_concurrently


@pytest.fixture
def single_redis() -> None:
    """A Cluster's calls may live on different nodes: callers never coalesce there."""
    if is_cluster(get_redis()):
        pytest.skip("coalescing is for a single Redis")


@pytest.mark.usefixtures("single_redis")
def test_concurrent_calls_share_round_trips_and_each_gets_its_own_reply() -> None:
    coalescer = coalesce.Coalescer()
    threads, each = 16, 50

    def worker(n: int) -> list[bytes]:
        return [coalescer.execute("ECHO", f"{n}:{i}") for i in range(each)]

    results = run_concurrently(worker, threads)

    assert results == [[f"{n}:{i}".encode() for i in range(each)] for n in range(threads)]
    assert coalescer.calls == threads * each
    assert coalescer.batches < coalescer.calls  # some round trips carried several calls


@pytest.mark.usefixtures("single_redis")
def test_a_failing_call_fails_alone() -> None:
    coalescer = coalesce.Coalescer()
    get_redis().set("coalesce:text", "not a number")

    def worker(n: int) -> object:
        if n == 0:
            with pytest.raises(redis.ResponseError):
                coalescer.execute("INCR", "coalesce:text")
            return "raised"
        return coalescer.execute("INCR", "coalesce:counter")

    results = run_concurrently(worker, 8)

    assert results[0] == "raised"
    assert sorted(results[1:]) == list(range(1, 8))  # every other call counted once


def test_a_flushed_script_is_loaded_again(settings, tmp_path) -> None:  # type: ignore[no-untyped-def]
    settings.REDIS_COALESCE = True  # off by default (decision 157)
    source = tmp_path / "add.lua"
    source.write_text("return redis.call('INCRBY', KEYS[1], ARGV[1])")
    script = scripts.LuaScript(source)
    scripts._registry.remove(script)  # a throwaway: not one of the project's scripts
    assert script.run_coalesced(["coalesce:sum"], [2]) == 2
    get_redis().script_flush()  # as after a Redis restart

    assert script.run_coalesced(["coalesce:sum"], [3]) == 5
