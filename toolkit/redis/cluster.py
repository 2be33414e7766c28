"""django-redis over a Redis Cluster (REDIS_CLUSTER=true): a client class whose raw
client is redis-py's RedisCluster, built from the URL of any node.

django-redis has no Cluster support of its own (jazzband/django-redis issues 606 and
710); redis-py's cluster client does the protocol (slots, MOVED/ASK, failovers), so this
only hands it out where django-redis would hand out a plain client. One RedisCluster per
URL and process: it keeps a pool per node, and a forked child builds its own.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from django.conf import settings
from django_redis.client import DefaultClient
from redis.cluster import ClusterNode, RedisCluster

from .client import get_redis

_clusters: dict[tuple[str, int], RedisCluster] = {}
_lock = threading.Lock()


class ClusterClient(DefaultClient):
    def connect(self, index: int = 0) -> RedisCluster:
        url = self._server[index]
        key = (url, os.getpid())
        with _lock:
            if key not in _clusters:
                _clusters[key] = RedisCluster.from_url(url, **self._cluster_options())
            return _clusters[key]

    def disconnect(self, index: int = 0, client: Any = None) -> None:
        (client or self.connect(index)).close()

    def _cluster_options(self) -> dict[str, Any]:
        options = self._options
        pool = options.get("CONNECTION_POOL_KWARGS", {})
        return {
            # Where to start besides the URL's node, which may be the one that died: a
            # process started during a failover (a respawned worker) finds the rest.
            "startup_nodes": [_node(address) for address in settings.REDIS_CLUSTER_NODES],
            "socket_timeout": options.get("SOCKET_TIMEOUT"),
            "socket_connect_timeout": options.get("SOCKET_CONNECT_TIMEOUT"),
            "health_check_interval": pool.get("health_check_interval", 0),
            "max_connections": pool.get("max_connections", 2**31),
        }


def _node(address: str) -> ClusterNode:
    host, _, port = address.strip().rpartition(":")
    return ClusterNode(host, int(port))


def cluster_client() -> RedisCluster:
    """The default Redis where settings.REDIS_CLUSTER says it is a Cluster, typed as one
    (get_redis says redis.Redis, the API both clients share)."""
    client = get_redis()
    assert isinstance(client, RedisCluster)
    return client


def is_cluster(client: Any) -> bool:
    """Whether `client` (or a pipeline of it) talks to a Redis Cluster."""
    return isinstance(client, RedisCluster) or hasattr(client, "nodes_manager")
