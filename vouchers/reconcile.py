"""Compare flash-sale state in Redis with the database, and repair Redis from it.

The database is the record of persisted orders; Redis also holds accepted orders
not yet drained (the shard's pending hash). So for each voucher:
  expected stock  = DB stock - accepted-but-not-persisted orders
  expected buyers = users with a live DB order + users with a pending order
Differences appear when Redis lost writes (a crash inside the AOF fsync window)
or someone edited keys by hand.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from dianping.redis import keys
from dianping.redis.client import get_redis

from .models import Voucher, VoucherOrder
from .stock import shard_of, stock_key


@dataclass
class Drift:
    voucher_id: int
    redis_stock: int | None
    expected_stock: int
    missing_buyers: set[int] = field(default_factory=set)
    extra_buyers: set[int] = field(default_factory=set)

    @property
    def clean(self) -> bool:
        return (
            self.redis_stock == self.expected_stock
            and not self.missing_buyers
            and not self.extra_buyers
        )


def _pending_buyers(voucher_ids: set[int]) -> dict[int, set[int]]:
    buyers: dict[int, set[int]] = defaultdict(set)
    client = get_redis()
    for shard in {shard_of(v) for v in voucher_ids}:
        for _, owner in client.hscan_iter(keys.seckill_pending(shard), count=1000):
            user_id, voucher_id = (int(part) for part in owner.split(b":"))
            if voucher_id in voucher_ids:
                buyers[voucher_id].add(user_id)
    return buyers


def seckill_drift(*, voucher_id: int | None = None) -> list[Drift]:
    vouchers = Voucher.objects.filter(type=Voucher.Kind.SECKILL)
    if voucher_id is not None:
        vouchers = vouchers.filter(pk=voucher_id)
    vouchers = list(vouchers)
    pending = _pending_buyers({v.id for v in vouchers})
    client = get_redis()
    drifts = []
    for voucher in vouchers:
        shard = shard_of(voucher.id)
        live = set(
            VoucherOrder.objects.filter(voucher=voucher, live=True).values_list(
                "user_id", flat=True
            )
        )
        expected_buyers = live | pending.get(voucher.id, set())
        redis_buyers = {int(m) for m in client.smembers(keys.seckill_buyers(shard, voucher.id))}
        raw = client.get(stock_key(voucher.id))
        drifts.append(
            Drift(
                voucher_id=voucher.id,
                redis_stock=int(raw) if raw is not None else None,
                expected_stock=voucher.stock - len(pending.get(voucher.id, set())),
                missing_buyers=expected_buyers - redis_buyers,
                extra_buyers=redis_buyers - expected_buyers,
            )
        )
    return drifts


def seckill_repair(drift: Drift) -> None:
    """Make Redis match the database (and the accepted orders still pending)."""
    shard = shard_of(drift.voucher_id)
    buyers = keys.seckill_buyers(shard, drift.voucher_id)
    pipe = get_redis().pipeline(transaction=True)
    pipe.set(stock_key(drift.voucher_id), drift.expected_stock)
    if drift.missing_buyers:
        pipe.sadd(buyers, *drift.missing_buyers)
    if drift.extra_buyers:
        pipe.srem(buyers, *drift.extra_buyers)
    pipe.execute()
