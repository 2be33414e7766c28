"""The activity list: one preheated entry in Redis (logically expiring, never expiring
physically), and each process's snapshot of it with the sales' remaining stock, at most
SECKILL_ACTIVITIES_MAX_AGE old, so that a read of the list costs no round trip."""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cache
from typing import Any

from django.conf import settings

from dianping import runtime
from dianping.redis.cache import CacheClient

ACTIVITIES_IDENT = "all"


@cache
def activities_cache() -> CacheClient:
    """The preheated activity list: one logically expiring entry, never expiring physically."""
    return CacheClient("seckill-activities", ttl=60)


@dataclass(frozen=True, slots=True)
class Snapshot:
    taken: float  # time.monotonic()
    items: list[dict[str, Any]]  # the list's vouchers, with `remaining` and parsed times


_snapshot: Snapshot | None = None


def activities_snapshot() -> list[dict[str, Any]] | None:
    """This process's snapshot of the list, if it is young enough."""
    snapshot = _snapshot
    if snapshot is None or time.monotonic() - snapshot.taken > settings.SECKILL_ACTIVITIES_MAX_AGE:
        return None
    return snapshot.items


def activities_remember(items: list[dict[str, Any]]) -> None:
    global _snapshot
    _snapshot = Snapshot(time.monotonic(), items)


def _forget() -> None:
    global _snapshot
    _snapshot = None


def activities_evict() -> None:
    """After a committed change of a listed voucher: the entry goes (the next read or
    preheat rebuilds it), and this process's snapshot with it; other processes' expire
    within SECKILL_ACTIVITIES_MAX_AGE."""
    activities_cache().evict(ACTIVITIES_IDENT)
    _forget()


runtime.register(runtime.Part("activities", reset=_forget, stop=_forget, after_fork=_forget))
