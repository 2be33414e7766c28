"""A Redis outage: which errors mean Redis cannot be reached, and a circuit that keeps a
dead Redis from stalling every request (docs/product/durability.md#redis-down, issue 23).

Without the circuit each request would wait for its own connect to fail: at once for a
stopped Redis on this host, SOCKET_CONNECT_TIMEOUT (2 s) for a host that vanished. Once
a connect fails, the circuit of that address opens: every connect in the process fails
at once, and one background thread probes Redis (PING every PROBE_INTERVAL) until it
answers, which closes the circuit. Callers see an ordinary `redis.ConnectionError`.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any

import redis
from redis.exceptions import (
    AuthenticationError,
    AuthorizationError,
    ClusterDownError,
    OutOfMemoryError,
    ReadOnlyError,
    RedisClusterException,
    SlotNotCoveredError,
)

logger = logging.getLogger(__name__)

# Redis is unreachable, restarting (LOADING is a ConnectionError), a Cluster has no master
# for a slot or cannot be found, or the server refuses writes (a demoted primary, no
# memory left): nothing a caller did, and nothing a retry within the request would fix.
OUTAGE_ERRORS: tuple[type[Exception], ...] = (
    redis.ConnectionError,
    redis.TimeoutError,
    ClusterDownError,
    RedisClusterException,
    SlotNotCoveredError,
    ReadOnlyError,
    OutOfMemoryError,
)
# Connection errors that say the configuration is wrong, not that Redis is away: they
# answer 503 like the others but open no circuit (its probe would never succeed).
_NOT_AN_OUTAGE = (AuthenticationError, AuthorizationError)
PROBE_INTERVAL = 0.5  # seconds between two probes of a Redis whose circuit is open
_PROBE_TIMEOUT = 2.0


class _Circuit:
    """One address's circuit; `open` while a probe thread waits for Redis to answer."""

    def __init__(self, address: str, probe_kwargs: dict) -> None:
        self.address, self.probe_kwargs = address, probe_kwargs
        self.opened_at: float | None = None
        self.pid = os.getpid()
        self._lock = threading.Lock()

    @property
    def is_open(self) -> bool:
        if self.pid != os.getpid():  # a forked child: the probe thread stayed behind
            self.opened_at, self.pid = None, os.getpid()
        return self.opened_at is not None

    def trip(self, error: Exception) -> None:
        with self._lock:
            if self.is_open:
                return
            self.opened_at = time.monotonic()
        logger.warning("Redis at %s unreachable (%s): circuit open", self.address, error)
        threading.Thread(target=self._probe, name="redis-circuit-probe", daemon=True).start()

    def _probe(self) -> None:
        while True:
            time.sleep(PROBE_INTERVAL)
            probe = redis.Connection(**self.probe_kwargs)
            try:
                probe.connect()
                probe.send_command("PING")
                if probe.read_response() in (b"PONG", "PONG", True):
                    break
            except Exception:  # whatever it was, Redis did not answer: probe again
                continue
            finally:
                probe.disconnect()
        outage = time.monotonic() - (self.opened_at or 0)
        self.opened_at = None
        logger.warning(
            "Redis at %s answers again after %.1f s: circuit closed", self.address, outage
        )


_circuits: dict[str, _Circuit] = {}
_circuits_lock = threading.Lock()


def _circuit_for(connection: redis.Connection) -> _Circuit:
    address = f"{connection.host}:{connection.port}"
    circuit = _circuits.get(address)
    if circuit is None:
        with _circuits_lock:
            probe_kwargs = {
                "host": connection.host,
                "port": connection.port,
                "password": connection.password,
                "username": connection.username,
                # A probe never waits long: another follows PROBE_INTERVAL later.
                "socket_connect_timeout": _PROBE_TIMEOUT,
                "socket_timeout": _PROBE_TIMEOUT,
            }
            circuit = _circuits.setdefault(address, _Circuit(address, probe_kwargs))
    return circuit


def circuits_open() -> list[str]:
    """The addresses this process now treats as unreachable."""
    return [address for address, circuit in _circuits.items() if circuit.is_open]


class CircuitConnection(redis.Connection):
    """A redis-py TCP connection that fails at once while its address's circuit is open,
    and opens it when a connect fails or Redis stops answering within the socket timeout."""

    def connect_check_health(self, *args: Any, **kwargs: Any) -> None:
        if self._sock:
            return
        circuit = _circuit_for(self)
        if circuit.is_open:
            raise redis.ConnectionError(f"Redis at {circuit.address} is unreachable")
        try:
            super().connect_check_health(*args, **kwargs)
        except OUTAGE_ERRORS as error:
            if not isinstance(error, _NOT_AN_OUTAGE):
                circuit.trip(error)
            raise

    def read_response(self, *args: Any, **kwargs: Any) -> object:
        try:
            return super().read_response(*args, **kwargs)
        except redis.TimeoutError as error:  # connected, but Redis does not answer
            _circuit_for(self).trip(error)
            raise


class CircuitPool(redis.ConnectionPool):
    """django-redis's pool (CONNECTION_POOL_CLASS) with `CircuitConnection` for TCP; a
    Unix socket URL keeps its own connection class (a refused connect is instant there)."""

    def __init__(self, connection_class: type = CircuitConnection, **kwargs: Any) -> None:
        super().__init__(connection_class=connection_class, **kwargs)
