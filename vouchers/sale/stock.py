"""Flash-sale stock in Redis: where it lives and how it is (re)loaded from the database."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from dianping import clock
from dianping.redis.outage import OUTAGE_ERRORS
from dianping.redis.scripts import lua

from ..models import Voucher
from .shard import SALE_REDIS, buyers_key, sale_redis, stock_key

_LOAD = lua(__file__, "stock_load.lua", alias=SALE_REDIS)
_RETIRE = lua(__file__, "retire.lua", alias=SALE_REDIS)


def stock_load(vouchers: Iterable[Voucher]) -> dict[int, str]:
    """Write DB stock to Redis: overwrite while a sale is pending and nobody has bought,
    only if absent once it is active (never resurrect units already sold); leave ended
    and void sales alone. Returns {voucher id: outcome} (see stock_load.lua, or "skipped")."""
    now = clock.now()
    outcome: dict[int, str] = {}
    loads = []
    for voucher in vouchers:
        status = voucher.status_at(now) if voucher.is_seckill else None
        if status in (Voucher.Status.PENDING, Voucher.Status.ACTIVE):
            keys_ = [stock_key(voucher.id), buyers_key(voucher.id)]
            loads.append((voucher.id, keys_, [voucher.stock, status]))
        else:
            outcome[voucher.id] = "skipped"
    replies = _LOAD.run_many([(keys_, args) for _, keys_, args in loads])
    for (voucher_id, _, _), reply in zip(loads, replies, strict=True):
        if isinstance(reply, Exception):
            raise reply
        outcome[voucher_id] = reply.decode()
    return outcome


def stock_retire(voucher_id: int) -> bool:
    """Take a sale out of Redis before its voucher's row is deleted, unless it has buyers
    (accepted orders, drained or not); False when it has. From then on the script
    answers "not loaded"."""
    return bool(_RETIRE([stock_key(voucher_id), buyers_key(voucher_id)]))


def has_buyers(voucher_id: int) -> bool:
    """Whether the sale accepted any order for the voucher (drained or not)."""
    return bool(sale_redis().exists(buyers_key(voucher_id)))


def stock_forget(voucher_id: int) -> None:
    """A deleted voucher's sale state: its stock (a preheat may have reloaded it since it
    was retired) and its buyers."""
    sale_redis().delete(stock_key(voucher_id), buyers_key(voucher_id))


def queue_live_stock(pipe: Any, voucher_ids: list[int]) -> None:
    """`live_stock`'s reads, queued on a caller's pipeline (`read_live_stock` parses)."""
    for voucher_id in voucher_ids:
        pipe.get(stock_key(voucher_id))


def read_live_stock(voucher_ids: list[int], replies: list[Any]) -> dict[int, int | None]:
    return {
        vid: (int(raw) if raw is not None else None)
        for vid, raw in zip(voucher_ids, replies, strict=True)
    }


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
    """Units left in Redis per voucher (None: not loaded), in one round trip."""
    if not voucher_ids:
        return {}
    pipe = sale_redis().pipeline(transaction=False)
    queue_live_stock(pipe, voucher_ids)
    return read_live_stock(voucher_ids, pipe.execute())
