"""One Redis connection per thread, for the few calls on the hottest request path.

A command through redis-py's client checks a connection out of the shared pool and
back in (a lock each way, a readiness poll, observability hooks, a retry wrapper):
about 40 µs of CPU per command on our 2-core machine, more than the round trip's own
two system calls. A thread that keeps a connection of its own pays only for those.
The connection is built like the pool's (same server, timeouts, health checks) but is
not counted in it; it dies with its thread, and a forked child makes its own.
"""

from __future__ import annotations

import os
import threading
from typing import Any

import hiredis
from redis.connection import AbstractConnection
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from .client import DEFAULT, get_redis

_local = threading.local()


def execute(*command: str | bytes | int | float, alias: str = DEFAULT) -> Any:
    """Run one command on this thread's connection to the Redis of `alias`; its reply (an
    error reply raises). A write or read that fails (a timeout included) closes the
    connection, as redis-py does for the pool's, so a late reply can never be read as
    the next command's."""
    connection = _connection(alias)
    _drop_if_stale(connection)
    # hiredis' stub says a 1-tuple where it takes a command of any length.
    connection.send_packed_command([hiredis.pack_command(command)])  # type: ignore[arg-type]
    return connection.read_response()


def execute_together(*commands: tuple[Any, ...], alias: str = DEFAULT) -> list[Any]:
    """Send `commands` in one write on this thread's connection, because `WAIT` only
    counts the writes made on its own connection. Returns the replies in order; an error
    reply comes back as the exception object, not raised."""
    connection = _connection(alias)
    _drop_if_stale(connection)
    connection.send_packed_command([hiredis.pack_command(command) for command in commands])
    replies = []
    for _ in commands:
        try:
            replies.append(connection.read_response())
        except ResponseError as exc:
            replies.append(exc)
    return replies


def _drop_if_stale(connection: AbstractConnection) -> None:
    """What the pool checks on every checkout: a connection the server closed (a
    restart) or one holding a stray reply is dropped before it is written to; the next
    write opens a fresh one."""
    if connection._sock is None:
        return
    try:
        stale = connection.can_read(timeout=0)
    except (RedisConnectionError, OSError):  # a peer-closed socket says so by raising
        stale = True
    if stale:
        connection.disconnect()


def _connection(alias: str) -> AbstractConnection:
    connections = getattr(_local, "connections", None)
    if connections is None:
        connections = _local.connections = {}
    connection = connections.get(alias)
    if connection is None or connection.pid != os.getpid():
        pool = get_redis(alias).connection_pool
        connection = pool.connection_class(**pool.connection_kwargs)
        connections[alias] = connection
    return connection
