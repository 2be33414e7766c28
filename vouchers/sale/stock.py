"""Flash-sale stock in Redis: where it lives and how it is (re)loaded from the database."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from toolkit import clock
from toolkit.redis.outage import OUTAGE_ERRORS
from toolkit.redis.scripts import lua

from .. import keys
from ..models import Voucher
from ..sale_orders import SALE_REDIS, sale_redis
from .buckets import split
from .shard import placement
from .window import sale_windows

_LOAD = lua(__file__, "stock_load.lua", alias=SALE_REDIS)
_RETIRE = lua(__file__, "retire.lua", alias=SALE_REDIS)


def _bucket_keys(voucher_id: int, shards: Iterable[int]) -> list[list[str]]:
    """[stock, buyers] of each of a sale's buckets."""
    return [
        [keys.seckill_stock(shard, voucher_id), keys.seckill_buyers(shard, voucher_id)]
        for shard in shards
    ]


def stock_load(vouchers: Iterable[Voucher]) -> dict[int, str]:
    """Copy the database's stock to Redis, split across the sale's buckets, without ever
    bringing back a unit that was sold.

    A pending sale nobody has bought from is overwritten; an active sale is written only
    where Redis has no stock; ended and void sales are left alone. Returns {voucher id:
    outcome}: stock_load.lua's answer for the first bucket, or "skipped"."""
    now = clock.now()
    outcome: dict[int, str] = {}
    loads: list[tuple[int, list[str], list[Any]]] = []
    for voucher in vouchers:
        status = voucher.status_at(now) if voucher.is_seckill else None
        if status not in (Voucher.Status.PENDING, Voucher.Status.ACTIVE):
            outcome[voucher.id] = "skipped"
            continue
        shards = placement(voucher.id, voucher.sale_shards)
        shares = split(voucher.stock or 0, len(shards))
        for keys_, units in zip(_bucket_keys(voucher.id, shards), shares, strict=True):
            loads.append((voucher.id, keys_, [units, status]))
    replies = _LOAD.run_many([(keys_, args) for _, keys_, args in loads])
    for (voucher_id, _, _), reply in zip(loads, replies, strict=True):
        if isinstance(reply, Exception):
            raise reply
        outcome.setdefault(voucher_id, reply.decode())
    return outcome


def stock_retire(voucher: Voucher) -> bool:
    """Take a sale out of Redis before its voucher's row is deleted, unless it has buyers
    (accepted orders, drained or not); False when it has. From then on the script
    answers "not loaded". (Only a sale that is not on is deleted: no sale runs meanwhile.)"""
    shards = placement(voucher.id, voucher.sale_shards)
    return all(bool(_RETIRE(keys_)) for keys_ in _bucket_keys(voucher.id, shards))


def has_buyers(voucher: Voucher) -> bool:
    """Whether the sale accepted any order for the voucher (drained or not)."""
    shards = placement(voucher.id, voucher.sale_shards)
    return any(sale_redis().exists(buyers) for _, buyers in _bucket_keys(voucher.id, shards))


def stock_forget(voucher_id: int, shards: tuple[int, ...]) -> None:
    """A deleted voucher's sale state in each bucket: its stock (a preheat may have
    reloaded it since it was retired) and its buyers."""
    for keys_ in _bucket_keys(voucher_id, shards):
        sale_redis().delete(*keys_)


Layout = list[tuple[int, tuple[int, ...]]]  # (voucher id, its buckets' shards), in order


def bucket_layout(voucher_ids: list[int]) -> Layout:
    """Each voucher with its buckets' shards: what `queue_live_stock` reads and
    `read_live_stock` parses, looked up once for both, every voucher's window together
    (one round trip on a cold cache, none from the near cache); an unknown voucher's
    own shard."""
    windows = sale_windows(voucher_ids) if voucher_ids else {}
    return [
        (voucher_id, window.shards if window is not None else placement(voucher_id, ""))
        for voucher_id in voucher_ids
        for window in [windows.get(voucher_id)]
    ]


def queue_live_stock(pipe: Any, layout: Layout) -> None:
    """Queue `live_stock`'s reads on the caller's pipeline, so they share its round trip;
    `read_live_stock` turns the replies into stock."""
    for voucher_id, shards in layout:
        for shard in shards:
            pipe.get(keys.seckill_stock(shard, voucher_id))


def read_live_stock(layout: Layout, replies: list[Any]) -> dict[int, int | None]:
    """Units left per voucher, summed over its buckets (None: none is loaded)."""
    return {
        voucher_id: units_left(per_shard)
        for voucher_id, per_shard in _by_bucket(layout, replies).items()
    }


def units_left(per_shard: dict[int, int | None]) -> int | None:
    """A sale's units over its buckets' stock (None: no bucket is loaded)."""
    loaded = [units for units in per_shard.values() if units is not None]
    return sum(loaded) if loaded else None


def _by_bucket(layout: Layout, replies: list[Any]) -> dict[int, dict[int, int | None]]:
    answers = iter(replies)
    return {
        voucher_id: {
            shard: (int(raw) if (raw := next(answers)) is not None else None) for shard in shards
        }
        for voucher_id, shards in layout
    }


def live_stock_by_bucket(voucher_ids: list[int]) -> dict[int, dict[int, int | None]]:
    """Units left in each bucket's shard per voucher (None: not loaded), one round trip."""
    layout = bucket_layout(voucher_ids)
    pipe = sale_redis().pipeline(transaction=False)
    queue_live_stock(pipe, layout)
    return _by_bucket(layout, pipe.execute() if voucher_ids else [])


def stored_stock(documents: list[dict[str, Any]]) -> dict[int, int | None]:
    """Each voucher document's stock as the database holds it (for a sale: behind the
    live stock by the orders not yet drained)."""
    return {doc["id"]: doc["stock"] for doc in documents}


def live_stock_or_stored(
    voucher_ids: list[int], documents: list[dict[str, Any]]
) -> dict[int, int | None]:
    """`live_stock`, or the documents' stored stock while the sale's own Redis cannot be
    reached: a list stays readable when only the sale is down."""
    try:
        return live_stock(voucher_ids)
    except OUTAGE_ERRORS:
        return stored_stock(documents)


def live_stock(voucher_ids: list[int]) -> dict[int, int | None]:
    """Units left in Redis per voucher, over its buckets (None: not loaded), in one
    round trip."""
    if not voucher_ids:
        return {}
    return {
        voucher_id: units_left(per_shard)
        for voucher_id, per_shard in live_stock_by_bucket(voucher_ids).items()
    }
