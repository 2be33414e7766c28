"""The flash sale heals itself after Redis lost or rolled back its state (issue 23).

A restart from an AOF written every second, a failover to a replica that lagged, or a
restored backup can leave Redis older than the database: units sold and drained back
on sale, buyers forgotten, so the sale would sell what the database no longer has. Each
shard's sale runs only while its live marker (keys.seckill_live) holds the run id of
the Redis process serving it: every one of those events runs under a new run id (a
marker in memory only would not do: an AOF rewrite or a replica's full sync copies
memory), and the sale answers 503 with Retry-After instead of a 200 it might not keep.

The drain, which holds the shard's lock, finds the marker gone and heals the shard: the
stock and buyers of every open sale's bucket in it are rewritten from the database plus
the orders still pending and the other buckets' stock (reconcile's rules), then the
marker is set and the sale goes on. No operator command; what was repaired is logged.

A Redis emptied mid-run has lost its database identity too (toolkit.identity): the
drain claims it back before healing, and neither heals nor drains a sale whose Redis
another database's processes claimed meanwhile (decision 292).
"""

from __future__ import annotations

import logging

from toolkit import clock, identity
from toolkit.redis.scripts import lua

from .. import keys
from ..models import Voucher
from ..sale_orders import SALE_REDIS
from .reconcile import Drift, bucket_repair
from .shard import placement

_MARK_LIVE = lua(__file__, "mark_live.lua", alias=SALE_REDIS)
log = logging.getLogger(__name__)


def shard_heal(shard: int) -> list[Drift]:
    """Rewrite the shard's open sales (those with a bucket in it) from the database and
    mark it live; returns the drifts found (clean ones too). The caller holds the shard's
    lock (the drain). Raises RedisOfAnotherDatabase, changing nothing, on another
    database's Redis."""
    check_belongs_here()
    now = clock.now()
    open_sales = Voucher.objects.filter(type=Voucher.Kind.SECKILL, end_time__gt=now)
    drifts = [
        bucket_repair(voucher, shard, locked=True)
        for voucher in open_sales.order_by("id")
        if shard in placement(voucher.id, voucher.sale_shards)
        and voucher.status_at(now) in (Voucher.Status.PENDING, Voucher.Status.ACTIVE)
    ]
    for drift in drifts:
        if not drift.clean:
            log.warning("seckill heal: shard %d repaired %s", shard, drift)
    mark_live(shard)
    return drifts


def mark_live(shard: int) -> None:
    _MARK_LIVE([keys.seckill_live(shard)], [])


def check_belongs_here() -> None:
    """Raise RedisOfAnotherDatabase (logged) unless the sale's Redis carries this
    database's identity; one that carries none (emptied by a restart or a flush) is
    claimed now. Its stock and orders are otherwise another database's: not to be
    drained into this one, nor healed from it."""
    try:
        identity.claim(SALE_REDIS, identity.database_identity())
    except identity.RedisOfAnotherDatabase as refused:
        log.error("seckill: the sale's Redis is not drained or healed: %s", refused)
        raise
