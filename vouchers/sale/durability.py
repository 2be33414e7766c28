"""How an accepted flash-sale order survives a Redis crash (SECKILL_DURABILITY).

- `fsync` (the default): the sale's Redis writes its AOF with `appendfsync always`, so
  it answers a write only once the write is on disk; a 200 survives a crash of Redis or
  its host. It costs the sale about a quarter of its throughput here (docs/benchmarks.md).
  With SECKILL_REDIS_URL the sale has a Redis of its own and only that one needs it.
- `replica`: each accepted order is confirmed by at least one replica (`WAIT`) before
  its 200; a replica that does not confirm within SECKILL_REPLICA_WAIT_MS makes the
  answer a 503 (the order may still be kept: "my vouchers" shows it, and a retry says
  the user already has one). For a Cluster, or a Redis with a replica.
- `none`: `appendfsync everysec`; a crash can lose about the last second of accepted
  orders. For those who choose speed.

Each process checks that Redis is configured as the mode requires (where the server
lets it read its configuration) and /api/health says so.
"""

from __future__ import annotations

from typing import Any

import redis
from django.conf import settings

from ..sale_orders import sale_redis

FSYNC, REPLICA, NONE = "fsync", "replica", "none"


def mode() -> str:
    return settings.SECKILL_DURABILITY


def configuration_problem() -> str | None:
    """What in Redis's configuration breaks the mode's promise, or None. A server that
    refuses CONFIG or INFO (a managed Redis, an ACL) cannot be checked: it is trusted."""
    try:
        if mode() == FSYNC:
            return _fsync_problem(sale_redis())
        if mode() == REPLICA:
            return _replica_problem(sale_redis())
    except redis.ResponseError:
        return None
    return None


def _fsync_problem(client: redis.Redis) -> str | None:
    for node_config in _per_node(client.config_get("append*")):
        if node_config.get("appendonly") != "yes":
            return "Redis has appendonly no"
        if node_config.get("appendfsync") != "always":
            return f"Redis has appendfsync {node_config.get('appendfsync')}"
    return None


def _replica_problem(client: redis.Redis) -> str | None:
    for info in _per_node(client.info("replication")):
        if info.get("role") == "master" and int(info.get("connected_slaves", 0)) < 1:
            return "a Redis master has no replica connected"
    return None


def _per_node(reply: Any) -> list[dict[str, Any]]:
    """A single Redis's reply, or a Cluster's replies of every node (a dict per node)."""
    if reply and all(isinstance(value, dict) for value in reply.values()):
        return [_decoded(value) for value in reply.values()]
    return [_decoded(reply)]


def _decoded(mapping: dict[Any, Any]) -> dict[str, Any]:
    return {
        (k.decode() if isinstance(k, bytes) else k): (v.decode() if isinstance(v, bytes) else v)
        for k, v in mapping.items()
    }


def durability_health() -> tuple[dict[str, Any], bool]:
    """/api/health's view: the mode, and what breaks its promise if anything does."""
    problem = configuration_problem()
    return {"sale_durability": mode() if problem is None else f"{mode()}: {problem}"}, (
        problem is None
    )
