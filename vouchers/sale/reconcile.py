"""Compare flash-sale state in Redis with the database, and repair Redis from it.

The database is the record of persisted orders; Redis also holds accepted orders
not yet drained (the shards' pending hashes). So for each bucket of a sale (one, unless
it is split: buckets.py):
  expected stock  = DB stock - accepted-but-not-persisted orders (every bucket's)
                    - the other verified buckets' stock - units moving between buckets
  expected buyers = users with a live DB order bought in this bucket + users with a
                    pending order in it
Differences appear when Redis lost writes (a crash inside the AOF fsync window)
or someone edited keys by hand. A bucket whose Redis lost its state is left out of the
others' stock: the first of them repaired takes what the lost ones held, and the
buckets even out again as they sell (buckets.refill).

A repair holds the shard's drain lock (so no order moves from Redis to the
database meanwhile), a split sale's moves lock, and writes under WATCH on the bucket's
stock and buyers keys, recomputing if a sale lands in between, so it is safe during a
live sale. The shard's pending hash is not watched: every entry added for this voucher
comes from the seckill script, which writes both watched keys in the same step, and the
drain, the only remover, is locked out; watching it would restart the repair on every
sale of every voucher in the shard. Another bucket's stock and pending orders are read in
one step (a sale changes both), before the database, so an order its drain persists
meanwhile is counted once. A cancellation that commits during the repair can still race
it; run again if one was in flight.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any, cast

import redis

from .. import keys
from ..models import Voucher, VoucherOrder
from ..sale_orders import (
    pending_field,
    pending_order_id,
    pending_owner,
    sale_redis,
    shard_of_order,
)
from . import buckets
from .shard import placement, shard_lock, unverified

_IN_LIST_MAX = 5000  # ids per query: SQLite caps a statement's parameters


@dataclass
class Drift:
    """One bucket of a sale (its only one, unless it is split: buckets.py) against the
    database."""

    voucher_id: int
    shard: int
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

    @classmethod
    def of_sale(cls, drifts: list[Drift]) -> Drift:
        """A sale's buckets' drifts as one (the sale's stock is their sum)."""
        stocks = [d.redis_stock for d in drifts if d.redis_stock is not None]
        return cls(
            voucher_id=drifts[0].voucher_id,
            shard=drifts[0].shard,
            redis_stock=sum(stocks) if stocks else None,
            expected_stock=sum(d.expected_stock for d in drifts),
            missing_buyers={u: o for d in drifts for u, o in d.missing_buyers.items()},
            extra_buyers={u for d in drifts for u in d.extra_buyers},
        )


def _voucher_pending(items: Any, voucher_id: int) -> dict[int, str]:
    """user -> order of a voucher's entries among a pending hash's (field, value) pairs."""
    pending: dict[int, str] = {}
    for order, owner in items:
        user_id, owner_voucher = pending_owner(owner)
        if owner_voucher == voucher_id:
            pending[user_id] = order.decode()
    return pending


@dataclass(frozen=True)
class _Elsewhere:
    """What a sale's other buckets hold, each read in one atomic step."""

    stock: int  # units in the verified ones (an unverified bucket's are its heal's to set)
    pending: dict[int, str]  # user -> order, accepted there and maybe not persisted yet
    in_transit: int  # units given by one bucket and not applied by another yet


def _elsewhere(voucher_id: int, shards: list[int], every_shard: tuple[int, ...]) -> _Elsewhere:
    """Read under the sale's moves lock: no move starts or lands meanwhile. A sale in one
    of them changes its stock and its pending orders in one step, so each bucket's pair is
    read atomically (a MULTI in its slot)."""
    if not shards:
        return _Elsewhere(0, {}, 0)
    client = sale_redis()
    verified = set(shards) - set(unverified(shards))
    stock, pending = 0, dict[int, str]()
    for shard in shards:
        with client.pipeline(transaction=True) as pipe:
            pipe.get(keys.seckill_stock(shard, voucher_id))
            pipe.hgetall(keys.seckill_pending(shard))
            raw, entries = pipe.execute()
        if shard in verified:
            stock += int(raw or 0)
        pending |= _voucher_pending(entries.items(), voucher_id)
    return _Elsewhere(stock, pending, _in_transit(voucher_id, every_shard))


def _in_transit(voucher_id: int, shards: tuple[int, ...]) -> int:
    """Units of the sale's moves recorded by their giver and not applied by their receiver
    (the units are in neither bucket's stock)."""
    pipe = sale_redis().pipeline(transaction=False)
    for shard in shards:
        pipe.hgetall(keys.seckill_moves(shard))
    applied = {
        shard: {move_id.decode() for move_id in moves}
        for shard, moves in zip(shards, pipe.execute(), strict=True)
    }
    return sum(
        transit.units
        for shard in shards
        for transit in buckets.transits(shard)
        if transit.voucher_id == voucher_id
        and transit.move_id not in applied.get(transit.to_shard, set())
    )


def bucket_drift(voucher: Voucher, shard: int, client: redis.Redis) -> Drift:
    """The sale's bucket in `shard`, read through `client` (a WATCHing pipeline in
    immediate mode, or the client); the other buckets after it, the database last, so an
    order the drain moves meanwhile is counted (once, as persisted), never missed."""
    every_shard = placement(voucher.id, voucher.sale_shards)
    pending = _voucher_pending(
        client.hscan_iter(keys.seckill_pending(shard), count=1000), voucher.id
    )
    buyers = cast("dict[bytes, bytes]", client.hgetall(keys.seckill_buyers(shard, voucher.id)))
    raw = client.get(keys.seckill_stock(shard, voucher.id))
    others = _elsewhere(voucher.id, [s for s in every_shard if s != shard], every_shard)
    # An order the drain committed but has not acked yet (it was stopped in between) is
    # in both the database and a pending hash: it counts once, as persisted.
    persisted = _persisted(
        [pending_order_id(o) for o in [*pending.values(), *others.pending.values()]]
    )
    pending = {u: o for u, o in pending.items() if pending_order_id(o) not in persisted}
    waiting = len(pending) + sum(
        pending_order_id(o) not in persisted for o in others.pending.values()
    )
    stock_now = Voucher.objects.values_list("stock", flat=True).get(pk=voucher.id)
    assert stock_now is not None  # a sale always has stock (a check constraint)
    live = VoucherOrder.objects.filter(voucher=voucher, live_slot__isnull=False).values_list(
        "user_id", "id"
    )
    expected = {
        user_id: pending_field(order_id)
        for user_id, order_id in live
        if len(every_shard) == 1 or shard_of_order(order_id) == shard
    } | pending
    in_redis = {int(user): order.decode() for user, order in buyers.items()}
    return Drift(
        voucher_id=voucher.id,
        shard=shard,
        redis_stock=int(raw) if raw is not None else None,
        expected_stock=max(0, stock_now - waiting - others.stock - others.in_transit),
        missing_buyers={u: o for u, o in expected.items() if in_redis.get(u) != o},
        extra_buyers=set(in_redis) - set(expected),
    )


def _persisted(order_ids: list[int]) -> set[int]:
    persisted: set[int] = set()
    for start in range(0, len(order_ids), _IN_LIST_MAX):
        chunk = order_ids[start : start + _IN_LIST_MAX]
        persisted |= set(VoucherOrder.objects.filter(pk__in=chunk).values_list("id", flat=True))
    return persisted


def seckill_drift(*, voucher_id: int | None = None) -> list[Drift]:
    """Each sale's drift, one per bucket."""
    vouchers = Voucher.objects.filter(type=Voucher.Kind.SECKILL)
    if voucher_id is not None:
        vouchers = vouchers.filter(pk=voucher_id)
    drifts = []
    for voucher in vouchers:
        for shard in placement(voucher.id, voucher.sale_shards):
            with _moves_held(voucher):
                drifts.append(bucket_drift(voucher, shard, sale_redis()))
    return drifts


def seckill_repair(voucher_id: int) -> Drift:
    """Make Redis match the database and the still-pending orders, bucket by bucket;
    returns what was fixed (the buckets' drifts as one)."""
    voucher = Voucher.objects.get(pk=voucher_id)
    return Drift.of_sale(
        [bucket_repair(voucher, shard) for shard in placement(voucher.id, voucher.sale_shards)]
    )


def bucket_repair(voucher: Voucher, shard: int, *, locked: bool = False) -> Drift:
    """Repair the sale's bucket in `shard`; returns what was fixed. Takes the shard's
    drain lock unless the caller holds it (`locked`: the drain heals), and a split sale's
    moves lock. Whatever a bucket lacks or holds too much lands in the first one repaired."""
    watched = [keys.seckill_stock(shard, voucher.id), keys.seckill_buyers(shard, voucher.id)]
    drain = (
        contextlib.nullcontext() if locked else shard_lock(shard, ttl=30, watchdog=True, wait=60)
    )
    with drain, _moves_held(voucher), sale_redis().pipeline(transaction=True) as pipe:
        while True:
            try:
                pipe.watch(*watched)
                drift = bucket_drift(voucher, shard, pipe)
                pipe.multi()
                pipe.set(watched[0], drift.expected_stock)
                if drift.missing_buyers:
                    pipe.hset(
                        watched[1],
                        mapping={str(user): order for user, order in drift.missing_buyers.items()},
                    )
                if drift.extra_buyers:
                    pipe.hdel(watched[1], *drift.extra_buyers)
                pipe.execute()
                return drift
            except redis.WatchError:
                continue  # a sale landed while we measured: measure again


def _moves_held(voucher: Voucher) -> contextlib.AbstractContextManager[Any]:
    """A split sale's moves lock, so no stock moves between buckets while one is read;
    nothing for a sale in one bucket."""
    if len(placement(voucher.id, voucher.sale_shards)) == 1:
        return contextlib.nullcontext()
    return buckets.moves_lock(voucher.id, wait=60)
