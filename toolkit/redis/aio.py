"""redis.asyncio clients, for a process that serves from an event loop (the notification
stream, notifications/stream.py): the Redis that `get_redis` reaches, through redis-py's
cluster client where settings.REDIS_CLUSTER says it is a Cluster, with the same timeouts.

One client per event loop: a redis.asyncio client's connections belong to the loop that
opened them (a test's `asyncio.run` makes a loop of its own each time).
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from typing import Any

import redis.asyncio as aioredis
from django.conf import settings
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.connection import AbstractConnection

COMMANDS = 50  # at once per event loop (`bounded`)
MAX_CONNECTIONS = 100  # per node and event loop, besides the fan-out's own (one per node)

_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = weakref.WeakKeyDictionary()
_semaphores: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary()
)


def get_async_redis() -> aioredis.Redis:
    """This loop's client of the default Redis (typed as a plain client: the commands
    both share)."""
    loop = asyncio.get_running_loop()
    client = _clients.get(loop)
    if client is None:
        client = _clients[loop] = _build()
    return client


def _build() -> Any:
    url = settings.CACHES["default"]["LOCATION"]
    options = settings.CACHES["default"].get("OPTIONS", {})
    timeouts = {
        "socket_connect_timeout": options.get("SOCKET_CONNECT_TIMEOUT"),
        "socket_timeout": options.get("SOCKET_TIMEOUT"),
    }
    if settings.REDIS_CLUSTER:
        nodes = [_node(address) for address in settings.REDIS_CLUSTER_NODES]
        return RedisCluster.from_url(
            url, startup_nodes=nodes or None, max_connections=MAX_CONNECTIONS, **timeouts
        )
    return aioredis.Redis.from_url(url, max_connections=MAX_CONNECTIONS, **timeouts)


def bounded() -> asyncio.Semaphore:
    """Held around each command: thousands of streams may ask at once (a wave of
    reconnects), and redis.asyncio's pools refuse a command past their size instead of
    making it wait. One command per connection at a time, so COMMANDS of them at once."""
    loop = asyncio.get_running_loop()
    semaphore = _semaphores.get(loop)
    if semaphore is None:
        semaphore = _semaphores[loop] = asyncio.Semaphore(COMMANDS)
    return semaphore


def _node(address: str) -> ClusterNode:
    host, _, port = address.strip().rpartition(":")
    return ClusterNode(host, int(port))


async def node_for(channel: bytes) -> tuple[str, Callable[[], AbstractConnection]]:
    """The node that serves `channel` (on a Cluster the master of its slot, else the one
    Redis): its name, and a maker of new connections of its own to it. Never pooled: such a
    connection is in subscribed mode, reading without a timeout."""
    client: Any = get_async_redis()
    if isinstance(client, RedisCluster):
        await client.initialize()  # the slot map, once per client
        node = client.get_node_from_key(channel.decode())
        if node is None:  # a slot no master serves: the Cluster is down
            raise ConnectionError(f"no node serves {channel!r}")
        kwargs, connection_class, name = node.connection_kwargs, node.connection_class, node.name
    else:
        pool = client.connection_pool
        kwargs, connection_class, name = pool.connection_kwargs, pool.connection_class, "default"
    # No retry and no health check of redis-py's own: a lost connection must be seen (its
    # subscriptions are gone with it), and only the caller reads what this one receives;
    # RESP2, whose replies to SSUBSCRIBE and messages read as lists (RESP3 would push them).
    kwargs = {
        **kwargs,
        "socket_timeout": None,
        "retry": None,
        "retry_on_error": [],
        "retry_on_timeout": False,
        "health_check_interval": 0,
        "protocol": 2,
    }
    return name, lambda: connection_class(**kwargs)


async def refresh_slots() -> None:
    """Read the Cluster's slot map again (after a subscription was lost to a failover or
    a slot's move); nothing on a single Redis."""
    client: Any = get_async_redis()
    if isinstance(client, RedisCluster):
        await client.nodes_manager.initialize()


async def close() -> None:
    """Close this loop's client, if it has one (before its loop ends)."""
    client = _clients.pop(asyncio.get_running_loop(), None)
    if client is not None:
        await client.aclose()
