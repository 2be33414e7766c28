"""The circuit of toolkit/redis/outage.py against real servers: once a connect to an
address fails, every connect to it fails at once (no wait on a dead Redis), until the
background probe finds Redis answering again."""

from __future__ import annotations

import time

import pytest
import redis

from tests.helpers import PrivateRedis, free_port, wait_until
from toolkit.redis import outage


def _client(port: int) -> redis.Redis:
    pool = outage.CircuitPool(host="127.0.0.1", port=port, socket_connect_timeout=2)
    return redis.Redis(connection_pool=pool)


def test_a_dead_address_fails_at_once_until_redis_answers_again(tmp_path) -> None:
    port = free_port()
    client = _client(port)
    with pytest.raises(redis.ConnectionError, match="Connection refused"):
        client.ping()  # the connect itself failed: that opens the circuit
    assert f"127.0.0.1:{port}" in outage.circuits_open()

    with pytest.raises(redis.ConnectionError, match="is unreachable"):
        client.ping()  # no connect was tried: the circuit answered

    server = PrivateRedis(tmp_path, port=port)
    server.start()
    try:
        wait_until(lambda: f"127.0.0.1:{port}" not in outage.circuits_open(), timeout=10)
        assert client.ping() is True
    finally:
        server.kill()


def test_a_redis_that_stops_answering_opens_the_circuit(tmp_path) -> None:
    """Connected, but no reply within the socket timeout (a hung server, a black hole):
    the next connects fail at once instead of each waiting out its own timeout."""
    server = PrivateRedis(tmp_path)
    server.start()
    assert server.process is not None
    pool = outage.CircuitPool(host="127.0.0.1", port=server.port, socket_timeout=1)
    client = redis.Redis(connection_pool=pool)
    try:
        assert client.ping() is True
        server.process.send_signal(19)  # SIGSTOP: the socket stays open, nothing answers
        with pytest.raises(redis.TimeoutError):
            client.ping()
        started = time.monotonic()
        with pytest.raises(redis.ConnectionError, match="is unreachable"):
            client.ping()
        assert time.monotonic() - started < 0.5  # no timeout waited out
        server.process.send_signal(18)  # SIGCONT
        wait_until(lambda: f"127.0.0.1:{server.port}" not in outage.circuits_open(), timeout=10)
        assert client.ping() is True
    finally:
        server.process.send_signal(18)
        server.kill()


def test_the_application_pool_is_a_circuit_pool(settings) -> None:
    from toolkit.redis.client import get_redis

    if settings.REDIS_CLUSTER:
        pytest.skip("a Cluster's client has its own pools and failover")
    assert isinstance(get_redis().connection_pool, outage.CircuitPool)
