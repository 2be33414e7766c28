"""The voucher caches. The activity list: one preheated entry in Redis (logically
expiring, never expiring physically), and each process's snapshot of it with the sales'
remaining stock, at most SECKILL_ACTIVITIES_MAX_AGE old, so that a read of the list costs
no round trip. Voucher documents, each shop's voucher ids and each user's orders: one
entry each, with near-cache copies, evicted by the writers through the `*_changed`
helpers below."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

from django.conf import settings
from django.db import transaction

from toolkit import runtime
from toolkit.redis.cache import CacheClient

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


@cache
def voucher_cache() -> CacheClient:
    """Each voucher's API document, less what the clock and the sale change (status, live
    stock): evicted after every committed write of its row (`vouchers_changed`)."""
    return CacheClient(
        "voucher", ttl=settings.VOUCHER_CACHE_TTL, near_ttl=settings.VOUCHER_NEAR_CACHE_TTL
    )


@cache
def shop_vouchers_cache() -> CacheClient:
    """The ids of each shop's vouchers on offer: evicted when one is created, moved,
    voided or deleted (`shop_vouchers_changed`)."""
    return CacheClient(
        "shop-vouchers",
        ttl=settings.VOUCHER_CACHE_TTL,
        near_ttl=settings.VOUCHER_NEAR_CACHE_TTL,
        # An unknown shop id (a typo, a probe) is remembered as absent this long only: a
        # shop created under that id meanwhile nothing here would evict.
        null_ttl=5,
    )


@cache
def my_orders_cache() -> CacheClient:
    """Each user's orders, newest first (at most MY_ORDERS_CACHED; null past that): what
    "my vouchers" pages through. Evicted after every committed write of one of the user's
    orders (`orders_changed`)."""
    return CacheClient(
        "my-orders", ttl=settings.VOUCHER_CACHE_TTL, near_ttl=settings.VOUCHER_NEAR_CACHE_TTL
    )


def vouchers_changed(voucher_ids: Iterable[int]) -> None:
    """In a writer's transaction: the vouchers' cached documents go once it commits."""
    _evict_on_commit(voucher_cache(), voucher_ids)


def shop_vouchers_changed(shop_ids: Iterable[int]) -> None:
    _evict_on_commit(shop_vouchers_cache(), shop_ids)


def orders_changed(user_ids: Iterable[int]) -> None:
    _evict_on_commit(my_orders_cache(), user_ids)


def _evict_on_commit(client: CacheClient, idents: Iterable[int]) -> None:
    """After commit, as a rolled-back write changes nothing and evicting before the
    commit would let a reader cache the old row again; right away outside a transaction."""
    idents = set(idents)
    if idents:
        transaction.on_commit(lambda: client.evict_many(idents), robust=True)


runtime.register(runtime.Part("activities", reset=_forget, stop=_forget, after_fork=_forget))
