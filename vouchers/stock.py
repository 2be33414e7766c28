"""Flash-sale stock in Redis: where it lives and how it is (re)loaded from the database."""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings

from dianping import clock
from dianping.redis import keys
from dianping.redis.client import get_redis

from .models import Voucher


def shard_of(voucher_id: int) -> int:
    return voucher_id % settings.SECKILL_SHARDS


def stock_key(voucher_id: int) -> str:
    return keys.seckill_stock(shard_of(voucher_id), voucher_id)


def stock_load(vouchers: Iterable[Voucher]) -> dict[int, str]:
    """Write DB stock to Redis: overwrite while a sale is pending, only if absent once it
    is active (never resurrect units already sold); leave ended and void sales alone.
    Returns {voucher id: "overwritten" | "set" | "kept" | "skipped"}."""
    now = clock.now()
    plan = []
    pipe = get_redis().pipeline(transaction=False)
    for voucher in vouchers:
        status = voucher.status_at(now) if voucher.is_seckill else None
        if status == Voucher.Status.PENDING:
            pipe.set(stock_key(voucher.id), voucher.stock)
            plan.append((voucher.id, "overwritten"))
        elif status == Voucher.Status.ACTIVE:
            pipe.set(stock_key(voucher.id), voucher.stock, nx=True)
            plan.append((voucher.id, "set-if-absent"))
        else:
            plan.append((voucher.id, "skipped"))
    replies = iter(pipe.execute())
    outcome = {}
    for voucher_id, action in plan:
        if action == "set-if-absent":
            action = "set" if next(replies) else "kept"
        elif action == "overwritten":
            next(replies)
        outcome[voucher_id] = action
    return outcome


def live_stock(voucher_ids: list[int]) -> dict[int, int | None]:
    """Units left in Redis per voucher (None: not loaded), in one round trip."""
    if not voucher_ids:
        return {}
    pipe = get_redis().pipeline(transaction=False)
    for voucher_id in voucher_ids:
        pipe.get(stock_key(voucher_id))
    return {
        vid: (int(raw) if raw is not None else None)
        for vid, raw in zip(voucher_ids, pipe.execute(), strict=True)
    }
