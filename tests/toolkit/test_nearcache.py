"""The in-process near cache: hits cost no Redis command, and Redis invalidates them."""

from __future__ import annotations

import redis as redis_py
from django.conf import settings
from redis.cluster import RedisCluster

from tests.helpers import command_calls, reset_command_stats, wait_until, warm_near_cache
from toolkit.redis import keys, nearcache
from toolkit.redis.cache import CacheClient
from toolkit.redis.nearcache import NearCache


class Loader:
    def __init__(self, value: object) -> None:
        self.value, self.calls = value, 0

    def __call__(self) -> object:
        self.calls += 1
        return self.value


def test_a_local_hit_sends_nothing_to_redis(redis_client) -> None:
    cache = CacheClient("near-a", ttl=60, near_ttl=30)
    assert warm_near_cache(cache, 1, Loader({"v": 1})) == b'{"v":1}'
    reset_command_stats(redis_client)

    for _ in range(100):
        assert cache.get(1, Loader({"v": "never loaded"})) == b'{"v":1}'

    assert command_calls(redis_client) == {}


def _another_client():
    """A client of its own, as another process would have (a cluster client on a Cluster)."""
    if settings.REDIS_CLUSTER:
        return RedisCluster.from_url(settings.REDIS_URL)
    return redis_py.Redis.from_url(settings.REDIS_URL)


def test_a_write_by_another_client_invalidates_the_local_copy(redis_client) -> None:
    cache = CacheClient("near-b", ttl=60, near_ttl=30)
    warm_near_cache(cache, 2, Loader({"v": 1}))
    other_process = _another_client()

    other_process.set(keys.cache("near-b", "2"), b'{"v":2}')

    wait_until(lambda: cache.get(2, Loader(None)) == b'{"v":2}', timeout=5)


def test_a_delete_elsewhere_makes_the_next_read_load_again(redis_client) -> None:
    cache = CacheClient("near-c", ttl=60, near_ttl=30)
    warm_near_cache(cache, 3, Loader({"v": 1}))

    _another_client().delete(keys.cache("near-c", "3"))

    wait_until(lambda: cache.get(3, Loader({"v": 3})) == b'{"v":3}', timeout=5)


def test_evict_in_this_process_is_immediate(redis_client) -> None:
    cache = CacheClient("near-d", ttl=60, near_ttl=30)
    warm_near_cache(cache, 4, Loader({"v": 1}))

    cache.evict(4)

    assert cache.get(4, Loader({"v": 2})) == b'{"v":2}'


def test_a_value_invalidated_while_it_was_being_read_is_not_kept(redis_client) -> None:
    cache = CacheClient("near-e", ttl=60, near_ttl=30)
    wait_until(nearcache.ready, timeout=10)
    key = keys.cache("near-e", "5")
    token = _near(cache).read_token(key)
    # The key changes (and the tracker hears of it) after our read began...
    redis_client.set(key, b"new")
    wait_until(lambda: _near(cache).read_token(key) != token, timeout=5)

    _near(cache).put(key, b"old", token)  # ...so the old value read earlier is refused.

    assert key not in _near(cache)._data


def test_copies_from_an_earlier_tracking_session_are_never_served(redis_client) -> None:
    cache = CacheClient("near-h", ttl=60, near_ttl=30)
    warm_near_cache(cache, 8, Loader({"v": 1}))
    key = cache.key(8)
    entry = _near(cache)._data[key]

    nearcache.clear_all()  # as on a reconnect: a new generation begins
    _near(cache)._data[key] = entry  # a put that raced the reconnect

    assert _near(cache).get(key) is nearcache.MISS


def test_losing_the_tracking_connection_drops_every_local_copy(redis_client) -> None:
    cache = CacheClient("near-f", ttl=60, near_ttl=30)
    warm_near_cache(cache, 6, Loader({"v": 1}))

    redis_client.client_kill_filter(_type="pubsub")  # the listener's connection dies

    wait_until(lambda: not _near(cache)._data, timeout=5)
    # It reconnects by itself, and serves fresh values again.
    assert warm_near_cache(cache, 6, Loader({"v": 1})) == b'{"v":1}'


def test_local_copies_expire_on_their_own(redis_client, monkeypatch) -> None:
    cache = CacheClient("near-g", ttl=60, near_ttl=30)
    warm_near_cache(cache, 7, Loader({"v": 1}))
    key = cache.key(7)
    value, expires_at, generation = _near(cache)._data[key]
    _near(cache)._data[key] = (value, expires_at - 31, generation)  # as if 31 s had passed

    assert _near(cache).get(key) is nearcache.MISS


def test_an_evictions_version_bump_is_no_invalidation_for_the_near_caches(redis_client) -> None:
    cache = CacheClient("near-i", ttl=60, near_ttl=30)
    warm_near_cache(cache, 9, Loader({"v": 1}))
    key = cache.key(9)
    version = keys.cache_version(key)
    assert version == "ver:cache:{near-i:9}"  # outside the tracked prefix, same hash tag
    before = _near(cache).read_token(key)

    cache.evict(9)  # DEL of the entry, INCR and EXPIRE of its version: one transaction

    # The entry's invalidation arrives; the version's would have come in the same message.
    wait_until(lambda: _near(cache).read_token(key) != before, timeout=5)
    assert not nearcache.saw_change(version)


def _near(cache: CacheClient) -> NearCache:
    assert cache.near is not None
    return cache.near
