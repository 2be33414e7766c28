"""Helpers shared by the tests (fixtures live in conftest.py; tests import helpers from
here, never from conftest): real concurrency and polling instead of sleeps, API clients
with a login, a clock that moves only when told."""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import redis
from django.db import connection
from rest_framework.test import APIClient

from accounts import tokens
from toolkit.redis import nearcache
from toolkit.redis.cache import CacheClient
from toolkit.redis.client import get_redis
from toolkit.redis.cluster import is_cluster

T = TypeVar("T")


class FakeClock:
    """A clock that moves only when told to."""

    def __init__(self, start: float) -> None:
        self.value = start

    def __call__(self) -> float:
        return self.value

    def advance(self, seconds: float) -> None:
        self.value += seconds


class TokenClient(APIClient):
    """An API client signed in with `token`, which it keeps for tests that read it."""

    def __init__(self, token: str) -> None:
        super().__init__()
        self.token = token
        self.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")


def client_for(user) -> TokenClient:
    """An API client carrying a fresh login token for `user`."""
    return TokenClient(tokens.token_issue(user))


def free_port() -> int:
    """A TCP port on loopback that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PrivateRedis:
    """A redis-server of a test's own, with an AOF written on every write, that can be
    killed (SIGKILL) and started again from it; `args` are more server options."""

    def __init__(self, directory: Path, *args: str, port: int | None = None) -> None:
        self.port, self.directory, self.args = port or free_port(), directory, args
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                shutil.which("redis-server") or "redis-server",
                "--bind",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--dir",
                str(self.directory),
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--save",
                "",
                *self.args,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_until(lambda: _answers(self.client()), timeout=30)

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port)

    def wait_replicating(self) -> None:
        """For a replica: until its link to the master is up (the first sync done)."""
        wait_until(lambda: self.client().info("replication").get("master_link_status") == "up", 30)

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)


def _answers(client: redis.Redis) -> bool:
    try:
        return bool(client.ping())
    except redis.ConnectionError:
        return False


def run_concurrently(fn: Callable[[int], T], workers: int) -> list[T]:
    """Run fn(i) in `workers` threads released together by a barrier; re-raise any error."""
    barrier = threading.Barrier(workers)
    results: list[Any] = [None] * workers
    errors: list[BaseException] = []

    def target(i: int) -> None:
        try:
            barrier.wait()
            results[i] = fn(i)
        except BaseException as exc:  # surfaced below, in the test's thread
            errors.append(exc)
        finally:
            connection.close()  # threads must not leak DB connections past the test

    threads = [threading.Thread(target=target, args=(i,)) for i in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    if errors:
        raise errors[0]
    return results


def wait_until(condition: Callable[[], Any], timeout: float = 10.0, interval: float = 0.01) -> Any:
    """Poll `condition` until it returns something truthy; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout}s")
        time.sleep(interval)


def warm_near_cache(cache: CacheClient, ident: object, loader: Callable[[], Any]) -> bytes | None:
    """Read until the value is held locally. The first read fills Redis, and that SET
    comes back as an invalidation: wait for it, so it cannot evict the copy later."""
    wait_until(nearcache.ready, timeout=10)
    key = cache.key(ident)
    if not get_redis().exists(key):
        cache.get(ident, loader)
    # A barrier: notices arrive in order, so once a fresh key's notice is in, so are the
    # fill's and any late one from an earlier test (a FLUSHDB, or this very key).
    barrier = f"{nearcache.TRACKED_PREFIX}barrier:{uuid.uuid4().hex}"
    get_redis().set(barrier, 1, px=1000)
    wait_until(lambda: nearcache.saw_change(barrier), timeout=5)
    value = cache.get(ident, loader)  # a Redis hit, now kept locally
    assert cache.near is not None
    assert cache.near.get(key) is not nearcache.MISS
    return value


def reset_command_stats(client) -> None:
    """CONFIG RESETSTAT on the Redis the tests use: every node of a cluster."""
    if is_cluster(client):
        client.config_resetstat(target_nodes=client.ALL_NODES)
    else:
        client.config_resetstat()


def command_calls(client, *, ignore: Iterable[str] = ()) -> dict[str, int]:
    """Calls per command since `reset_command_stats` (summed over a cluster's nodes), e.g.
    {"getex": 1}; the tests' own INFO and CONFIG, idle PINGs and replication's own
    traffic (REPLCONF, a replica's acks to its master) are never counted."""
    if is_cluster(client):
        per_node = client.info("commandstats", target_nodes=client.PRIMARIES).values()
    else:
        per_node = [client.info("commandstats")]
    calls: dict[str, int] = {}
    for stats in per_node:
        for name, stat in stats.items():
            command = name.removeprefix("cmdstat_")
            if command not in {"info", "config|resetstat", "ping", "replconf", *ignore}:
                calls[command] = calls.get(command, 0) + stat["calls"]
    return calls


def count_round_trips(monkeypatch) -> list[tuple]:
    """Record each batch of commands this thread sends to Redis (one entry a round trip),
    as the server it went to: a pipeline over a Cluster's keys sends a batch per node."""
    from redis.connection import AbstractConnection

    sent: list[tuple] = []
    me = threading.get_ident()
    real = AbstractConnection.send_packed_command

    def spy(self, command, check_health=True):
        if threading.get_ident() == me:
            sent.append((getattr(self, "host", None), getattr(self, "port", None)))
        return real(self, command, check_health)

    monkeypatch.setattr(AbstractConnection, "send_packed_command", spy)
    return sent


def throttle_rates(settings, **rates: str) -> None:
    """Set some DRF throttle rates for one test (`settings` is pytest-django's fixture),
    the others left as the test settings have them."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], **rates},
    }


def all_pages(api, url: str) -> list[dict]:
    """Every `results` item of a page-numbered list, following `next` to the end."""
    results, page = [], 1
    separator = "&" if "?" in url else "?"
    while True:
        body = api.get(f"{url}{separator}page={page}").json()
        results += body["results"]
        if not body["next"]:
            return results
        page += 1
