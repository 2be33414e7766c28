"""Compare flash-sale state in Redis with the database, and repair Redis from it.

The database is the record of persisted orders; Redis also holds accepted orders
not yet drained (the shard's pending hash). So for each voucher:
  expected stock  = DB stock - accepted-but-not-persisted orders
  expected buyers = users with a live DB order + users with a pending order
Differences appear when Redis lost writes (a crash inside the AOF fsync window)
or someone edited keys by hand.

A repair holds the shard's drain lock (so no order moves from Redis to the
database meanwhile) and writes under WATCH on the voucher's stock and buyers keys,
recomputing if a sale lands in between, so it is safe during a live sale. The
shard's pending hash is not watched: every entry added for this voucher comes from
the seckill script, which writes both watched keys in the same step, and the drain,
the only remover, is locked out; watching it would restart the repair on every sale
of every voucher in the shard. A cancellation that commits during the repair can
still race it; run again if one was in flight.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import cast

import redis

from dianping.redis import keys

from ..models import Voucher, VoucherOrder
from .shard import (
    buyers_key,
    pending_field,
    pending_order_id,
    pending_owner,
    sale_redis,
    shard_lock,
    shard_of,
    stock_key,
)

_IN_LIST_MAX = 5000  # ids per query: SQLite caps a statement's parameters


@dataclass
class Drift:
    voucher_id: int
    redis_stock: int | None
    expected_stock: int
    missing_buyers: dict[int, str] = field(default_factory=dict)  # user -> order
    extra_buyers: set[int] = field(default_factory=set)

    @property
    def clean(self) -> bool:
        return (
            self.redis_stock == self.expected_stock
            and not self.missing_buyers
            and not self.extra_buyers
        )


def _measure(voucher: Voucher, client: redis.Redis) -> Drift:
    """Read Redis through `client` (a WATCHing pipeline in immediate mode, or the client)."""
    pending: dict[int, str] = {}
    for order, owner in client.hscan_iter(keys.seckill_pending(shard_of(voucher.id)), count=1000):
        user_id, voucher_id = pending_owner(owner)
        if voucher_id == voucher.id:
            pending[user_id] = order.decode()
    # An order the drain committed but has not acked yet (it was stopped in between) is
    # in both the database and the pending hash: it counts once, as persisted.
    order_ids = [pending_order_id(order) for order in pending.values()]
    persisted: set[int] = set()
    for start in range(0, len(order_ids), _IN_LIST_MAX):
        chunk = order_ids[start : start + _IN_LIST_MAX]
        persisted |= set(VoucherOrder.objects.filter(pk__in=chunk).values_list("id", flat=True))
    pending = {u: o for u, o in pending.items() if pending_order_id(o) not in persisted}
    stock_now = Voucher.objects.values_list("stock", flat=True).get(pk=voucher.id)
    assert stock_now is not None  # a sale always has stock (a check constraint)
    live = VoucherOrder.objects.filter(voucher=voucher, live_slot__isnull=False).values_list(
        "user_id", "id"
    )
    expected = {user_id: pending_field(order_id) for user_id, order_id in live} | pending
    buyers = cast("dict[bytes, bytes]", client.hgetall(buyers_key(voucher.id)))
    in_redis = {int(user): order.decode() for user, order in buyers.items()}
    raw = client.get(stock_key(voucher.id))
    return Drift(
        voucher_id=voucher.id,
        redis_stock=int(raw) if raw is not None else None,
        expected_stock=stock_now - len(pending),
        missing_buyers={u: o for u, o in expected.items() if in_redis.get(u) != o},
        extra_buyers=set(in_redis) - set(expected),
    )


def seckill_drift(*, voucher_id: int | None = None) -> list[Drift]:
    vouchers = Voucher.objects.filter(type=Voucher.Kind.SECKILL)
    if voucher_id is not None:
        vouchers = vouchers.filter(pk=voucher_id)
    client = sale_redis()
    return [_measure(voucher, client) for voucher in vouchers]


def seckill_repair(voucher_id: int, *, locked: bool = False) -> Drift:
    """Make Redis match the database and the still-pending orders; returns what was fixed.
    Takes the shard's drain lock unless the caller holds it (`locked`: the drain heals)."""
    voucher = Voucher.objects.get(pk=voucher_id)
    watched = [stock_key(voucher_id), buyers_key(voucher_id)]
    lock = (
        contextlib.nullcontext()
        if locked
        else shard_lock(shard_of(voucher_id), ttl=30, watchdog=True, wait=60)
    )
    with lock, sale_redis().pipeline(transaction=True) as pipe:
        while True:
            try:
                pipe.watch(*watched)
                drift = _measure(voucher, pipe)
                pipe.multi()
                pipe.set(stock_key(voucher_id), drift.expected_stock)
                if drift.missing_buyers:
                    pipe.hset(
                        buyers_key(voucher_id),
                        mapping={str(user): order for user, order in drift.missing_buyers.items()},
                    )
                if drift.extra_buyers:
                    pipe.hdel(buyers_key(voucher_id), *drift.extra_buyers)
                pipe.execute()
                return drift
            except redis.WatchError:
                continue  # a sale landed while we measured: measure again
