"""What the request path needs of a sale's voucher, cached: its window, whether it is a
sale at all or void, and the shards its stock is split across (buckets.py)."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from toolkit.redis.cache import CacheClient

from ..models import Voucher
from .shard import placement

_sale_windows = CacheClient("sale-window", ttl=300, near_ttl=5)


def sale_window_evict(voucher_id: int) -> None:
    _sale_windows.evict(voucher_id)


@dataclass(frozen=True, slots=True)
class SaleWindow:
    """One sale's voucher as the request path reads it (cached as JSON, see `load`)."""

    seckill: bool
    void: bool
    begin: int  # Unix seconds; 0 when unset
    end: int
    shards: tuple[int, ...]  # its buckets' shards, its own first
    challenge: bool = False  # a grab needs a challenge's answer (challenge.py)


def _cached(voucher: Voucher) -> dict[str, Any]:
    """The cached form of a voucher's sale window (see `SaleWindow`)."""
    return {
        "seckill": voucher.is_seckill,
        "void": voucher.status == Voucher.Status.VOID,
        "begin": int(voucher.begin_time.timestamp()) if voucher.begin_time else 0,
        "end": int(voucher.end_time.timestamp()) if voucher.end_time else 0,
        "shards": list(placement(voucher.id, voucher.sale_shards)),
        "challenge": voucher.challenge,
    }


_COLUMNS = ("id", "type", "status", "begin_time", "end_time", "sale_shards", "challenge")


def sale_window(voucher_id: int) -> SaleWindow | None:
    """The voucher's sale window, or None when no such voucher exists."""

    def load() -> dict[str, Any] | None:
        voucher = Voucher.objects.filter(pk=voucher_id).only(*_COLUMNS).first()
        return None if voucher is None else _cached(voucher)

    raw = _sale_windows.get(voucher_id, load)
    return None if raw is None else _parse_window(raw)


def sale_windows(voucher_ids: Iterable[int]) -> dict[int, SaleWindow | None]:
    """`sale_window` of several vouchers at once (a shop's list of its sales): those the
    near cache holds cost nothing, the others one round trip together, and their misses
    one query (and one round trip to store them), however many there are."""

    def load(missing: list[int]) -> dict[int, dict[str, Any]]:
        found = Voucher.objects.filter(pk__in=missing).only(*_COLUMNS)
        return {voucher.id: _cached(voucher) for voucher in found}  # the rest: None

    raws = _sale_windows.lookup_many(list(dict.fromkeys(voucher_ids)), load)
    return {i: None if raw is None else _parse_window(raw) for i, raw in raws.items()}


def voucher_shards(voucher_id: int) -> tuple[int, ...]:
    """The shards of a voucher's buckets (its own shard for an unknown voucher)."""
    window = sale_window(voucher_id)
    return window.shards if window is not None else placement(voucher_id, "")


@functools.lru_cache(maxsize=1024)
def _parse_window(raw: bytes) -> SaleWindow:
    """Decoded once per cached value, not once per request: during a sale the near
    cache hands back the same bytes for every request."""
    fields = json.loads(raw)
    return SaleWindow(
        fields["seckill"],
        fields["void"],
        fields["begin"],
        fields["end"],
        tuple(fields["shards"]),
        fields.get("challenge", False),  # a window cached before the field existed: off
    )
