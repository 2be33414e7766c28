"""The generic cache client against real Redis, with real concurrent readers."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings

from tests.helpers import count_round_trips, run_concurrently, wait_until
from toolkit.redis import keys
from toolkit.redis.bloom import BloomFilter
from toolkit.redis.cache import CacheClient
from toolkit.redis.lock import RedisLock


class CountingLoader:
    """A loader that counts its calls and can be made slow, like a busy database."""

    def __init__(self, value: object, delay: float = 0.0) -> None:
        self.value, self.delay, self.calls = value, delay, 0
        self._lock = threading.Lock()

    def __call__(self) -> object:
        with self._lock:
            self.calls += 1
        time.sleep(self.delay)
        return self.value


def test_hit_returns_the_stored_json_bytes(redis_client) -> None:
    cache = CacheClient("t", ttl=60)
    loader = CountingLoader({"id": 1, "name": "Café"})

    first = cache.get(1, loader)
    second = cache.get(1, loader)

    assert first == second == '{"id":1,"name":"Café"}'.encode()
    assert redis_client.get(keys.cache("t", "1")) == first
    assert loader.calls == 1


def test_cold_key_under_100_concurrent_readers_loads_once() -> None:
    cache = CacheClient("t", ttl=60, rebuild_wait=5)
    loader = CountingLoader({"id": 7}, delay=0.2)

    results = run_concurrently(lambda _: cache.get(7, loader), workers=100)

    assert loader.calls == 1
    assert set(results) == {b'{"id":7}'}


def test_missing_item_is_cached_as_null_and_loaded_once_per_null_ttl(redis_client) -> None:
    cache = CacheClient("t", ttl=60, null_ttl=30)
    loader = CountingLoader(None, delay=0.05)

    started = time.monotonic()
    results = run_concurrently(lambda _: [cache.get(404, loader) for _ in range(20)], workers=50)

    assert loader.calls == 1
    assert all(result is None for batch in results for result in batch)
    assert redis_client.get(keys.cache("t", "404")) == b""
    elapsed_ms = (time.monotonic() - started) * 1000  # the marker aged while the threads ran
    assert 30_000 - elapsed_ms - 100 < redis_client.pttl(keys.cache("t", "404")) <= 30_000


def test_bloom_filter_keeps_unknown_ids_away_from_redis_and_db(redis_client) -> None:
    bloom = BloomFilter(keys.bloom("t"), capacity=1000)
    bloom.rebuild(str(i) for i in range(1, 101))
    cache = CacheClient("t", ttl=60, bloom=bloom)
    loader = CountingLoader({"never": "seen"})
    unknown = [i for i in range(10_000, 12_000) if not bloom.might_contain(str(i))]
    assert len(unknown) > 1900  # false positives are rare at this fill

    for ident in unknown:
        assert cache.get(ident, loader) is None

    assert loader.calls == 0
    assert not list(redis_client.scan_iter("cache:*"))
    assert cache.get(50, CountingLoader({"id": 50})) == b'{"id":50}'


def test_a_bloom_filter_that_was_never_built_filters_nothing() -> None:
    cache = CacheClient("t", ttl=60, bloom=BloomFilter(keys.bloom("absent"), capacity=10))

    assert cache.get(3, CountingLoader({"id": 3})) == b'{"id":3}'


def test_a_missing_item_is_loaded_again_once_its_null_marker_expires(redis_client) -> None:
    cache = CacheClient("t", ttl=60, null_ttl=30)
    loader = CountingLoader(None)
    run_concurrently(lambda _: cache.get(404, loader), workers=20)
    redis_client.pexpire(keys.cache("t", "404"), 1)  # as if the null TTL had run out
    wait_until(lambda: not redis_client.exists(keys.cache("t", "404")))

    run_concurrently(lambda _: cache.get(404, loader), workers=20)

    assert loader.calls == 2


def test_a_rebuild_that_loaded_before_an_eviction_does_not_store_the_old_value(
    redis_client,
) -> None:
    cache = CacheClient("t", ttl=60)
    loading, release = threading.Event(), threading.Event()

    def slow_old_row() -> dict:
        loading.set()
        release.wait(10)
        return {"v": "old"}

    reader = threading.Thread(target=lambda: cache.get(8, slow_old_row))
    reader.start()
    assert loading.wait(10)
    cache.evict(8)  # a writer committed {"v": "new"} and evicted while the reader loaded
    release.set()
    reader.join(10)

    assert redis_client.get(keys.cache("t", "8")) is None
    assert cache.get(8, CountingLoader({"v": "new"})) == b'{"v":"new"}'


def test_a_batch_that_loaded_before_an_eviction_does_not_store_the_old_values(
    redis_client,
) -> None:
    cache = CacheClient("t-many", ttl=60)

    def loader(missing: list[int]) -> dict[int, object]:
        cache.evict(1)  # a writer commits and evicts entry 1 while the batch loads
        return {ident: {"v": "old"} for ident in missing}

    found = cache.lookup_many([1, 2, 3], loader)

    assert found == dict.fromkeys([1, 2, 3], b'{"v":"old"}')  # this reader's answer
    assert redis_client.get(cache.key(1)) is None  # kept for nobody else: it may be stale
    assert redis_client.get(cache.key(2)) == b'{"v":"old"}'
    assert cache.lookup_many([2, 3], _never_loaded) == dict.fromkeys([2, 3], b'{"v":"old"}')


def _never_loaded(missing: list[int]) -> dict[int, object]:
    raise AssertionError(f"loaded {missing} again")


def test_a_batch_of_misses_costs_three_round_trips_and_one_load(monkeypatch) -> None:
    cache = CacheClient("t-cold", ttl=60)
    loads = []

    def loader(missing: list[int]) -> dict[int, object]:
        loads.append(missing)
        return {ident: {"id": ident} for ident in missing if ident != 7}  # 7 does not exist

    cache.lookup_many([100], loader)  # the store script is loaded into Redis once
    loads.clear()
    round_trips = count_round_trips(monkeypatch)
    found = cache.lookup_many(list(range(10)), loader)

    assert loads == [list(range(10))]
    assert found[7] is None
    assert found[3] == b'{"id":3}'
    if not settings.REDIS_CLUSTER:  # a Cluster runs the stores one by one
        assert len(round_trips) == 3  # the entries, their versions, the stores


def test_ttls_of_many_keys_are_spread_not_equal(redis_client) -> None:
    cache = CacheClient("t", ttl=100, jitter=0.2)
    started = time.monotonic()
    for ident in range(1000):
        cache.get(ident, CountingLoader({"id": ident}))
    pipe = redis_client.pipeline(transaction=False)
    for ident in range(1000):
        pipe.pttl(keys.cache("t", str(ident)))
    ttls = pipe.execute()
    spent_ms = (time.monotonic() - started) * 1000  # the first keys aged meanwhile

    assert all(100_000 - spent_ms - 100 < ttl <= 120_000 for ttl in ttls)
    assert len(set(ttls)) > 900
    assert max(ttls) - min(ttls) > 15_000


def test_a_reader_never_waits_forever_for_a_stuck_rebuild(redis_client) -> None:
    cache = CacheClient("t", ttl=60, rebuild_wait=0.3)
    stuck = RedisLock(keys.cache_lock(keys.cache("t", "9")), ttl=30)
    assert stuck.acquire()  # as if another process died mid-rebuild

    started = time.monotonic()
    value = cache.get(9, CountingLoader({"id": 9}))

    assert value == b'{"id":9}'
    assert 0.3 <= time.monotonic() - started < 3
    assert redis_client.get(keys.cache("t", "9")) is None  # the lock holder writes, not us
    assert stuck.owned()


def test_evict_makes_the_next_read_load_again() -> None:
    cache = CacheClient("t", ttl=60)
    cache.get(1, CountingLoader({"v": 1}))

    cache.evict(1)

    assert cache.get(1, CountingLoader({"v": 2})) == b'{"v":2}'


def test_logical_expiry_serves_stale_data_while_one_rebuild_runs(fake_clock, redis_client) -> None:
    cache = CacheClient("hot", ttl=60)
    cache.put_logical(1, {"v": "old"}, logical_ttl=10)
    fake_clock.advance(11)
    release = threading.Event()
    calls = []

    def slow_loader() -> dict:
        calls.append(1)
        release.wait(10)
        return {"v": "new"}

    results = run_concurrently(
        lambda _: cache.get_logical(1, slow_loader, logical_ttl=10), workers=50
    )

    assert set(results) == {b'{"v":"old"}'}  # nobody waited for the rebuild
    release.set()
    wait_until(lambda: redis_client.hget(keys.cache("hot", "1"), "data") == b'{"v":"new"}')
    assert len(calls) == 1
    assert redis_client.ttl(keys.cache("hot", "1")) == -1  # never expires physically
    assert cache.get_logical(1, slow_loader, logical_ttl=10) == b'{"v":"new"}'
    assert len(calls) == 1


def test_logical_key_that_was_never_preheated_is_built_once(redis_client) -> None:
    cache = CacheClient("hot", ttl=60)
    loader = CountingLoader({"v": 1}, delay=0.1)

    results = run_concurrently(lambda _: cache.get_logical(2, loader, logical_ttl=30), workers=30)

    assert set(results) == {b'{"v":1}'}
    assert loader.calls == 1


def test_a_stale_read_while_the_process_stops_serves_the_old_value_and_frees_the_lock(
    fake_clock, redis_client, monkeypatch
) -> None:
    """A refresh that cannot be scheduled (the rebuild pool is shut down) must not keep the
    key's lock for its whole TTL: the next process's first stale read refreshes at once."""
    from toolkit.redis import cache as cache_module

    cache = CacheClient("hot", ttl=60)
    cache.put_logical(1, {"v": "old"}, logical_ttl=10)
    fake_clock.advance(11)
    stopped = ThreadPoolExecutor(max_workers=1)
    stopped.shutdown()
    monkeypatch.setattr(cache_module, "rebuild_pool", lambda: stopped)
    loader = CountingLoader({"v": "new"})

    assert cache.get_logical(1, loader, logical_ttl=10) == b'{"v":"old"}'

    assert loader.calls == 0
    assert not redis_client.exists(keys.cache_lock(keys.cache("hot", "1")))
