"""Reads over several keys that may live in different Cluster slots.

On one Redis they are single commands; on a Redis Cluster a multi-key command must keep
its keys in one slot, so keys from different slots are read one by one and combined
here. (Writes that must be atomic keep their keys in one slot by design instead.)
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import cast

from redis.cluster import key_slot

from . import keys
from .client import get_redis
from .cluster import is_cluster


def _one_slot(names: Sequence[str]) -> bool:
    return len({key_slot(name.encode()) for name in names}) <= 1


def intersection(names: Sequence[str]) -> set[bytes]:
    """SINTER of the sets `names`; on a cluster, the sets' members intersected here."""
    client = get_redis()
    if not is_cluster(client) or _one_slot(names):
        return set(cast("set[bytes]", client.sinter(list(names))))  # bytes: no decoding
    pipe = client.pipeline(transaction=False)
    for name in names:
        pipe.smembers(name)
    sets = pipe.execute()
    return set.intersection(*sets) if sets else set()


def hyperloglog_union_count(names: Sequence[str]) -> int:
    """PFCOUNT of several HyperLogLogs (the size of their union, nothing merged into a
    stored key). On a cluster, the logs are copied into scratch keys of one slot (a
    HyperLogLog is a string), counted there together, and deleted."""
    client = get_redis()
    if not names:
        return 0
    if not is_cluster(client) or _one_slot(names):
        return client.pfcount(*names)
    read = client.pipeline(transaction=False)
    for name in names:
        read.get(name)
    logs = [log for log in read.execute() if log is not None]
    if not logs:
        return 0
    tag = secrets.token_hex(8)
    scratch = [keys.scratch(tag, i) for i in range(len(logs))]
    pipe = client.pipeline(transaction=True)  # one slot: the scratch keys share a tag
    for name, log in zip(scratch, logs, strict=True):
        pipe.set(name, log, ex=60)  # gone by itself should this read die half-way
    pipe.execute()
    try:
        return client.pfcount(*scratch)
    finally:
        client.delete(*scratch)


def hyperloglog_counts(names: Sequence[str]) -> list[int]:
    """PFCOUNT of each HyperLogLog: one pipelined round trip on a single Redis, one call
    each on a Cluster (its pipelines refuse PFCOUNT)."""
    client = get_redis()
    if is_cluster(client):
        return [client.pfcount(name) for name in names]
    pipe = client.pipeline(transaction=False)
    for name in names:
        pipe.pfcount(name)
    return pipe.execute()
