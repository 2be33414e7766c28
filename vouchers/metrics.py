"""The flash sale's metric instruments and constants (dianping/metrics.py has the
mechanics; docs/operations.md lists them): verdicts counted where they are decided, the
drain's work counted in the Celery process that does it. The gauges read from the sale's
Redis at scrape time are in vouchers/sale/gauges.py; this module imports neither the sale
nor the coupons, so both can import it."""

from __future__ import annotations

from functools import cache
from typing import Any

from prometheus_client import Counter, Histogram

SECKILL_REQUESTS_NAME = "dianping_seckill_requests"  # exposed as ..._total
SECKILL_REQUESTS = Counter(
    SECKILL_REQUESTS_NAME,
    "Flash-sale attempts by voucher and verdict (accepted, sold_out, duplicate, ...); "
    "voucher is 'other' for ids that are no flash sale.",
    ["voucher", "verdict"],
)
DRAIN_ORDERS = Counter(
    "dianping_drain_orders",
    "Accepted orders the drain settled, by shard and outcome (persisted, dead_lettered).",
    ["shard", "outcome"],
)
DRAIN_BATCH = Histogram(
    "dianping_drain_batch_size",
    "Stream entries read per non-empty drain batch, by shard.",
    ["shard"],
    buckets=(1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500),
)

BUCKET_MOVES = Counter(
    "dianping_seckill_bucket_moves",
    "Units of flash-sale stock moved from one of a sale's buckets to an empty one, by voucher.",
    ["voucher"],
)

CHALLENGES = Counter(
    "dianping_seckill_challenges",
    "Flash-sale challenges by voucher and outcome: issued, passed, and the failures "
    "missing (none sent), expired (none open: expired, used or never fetched), wrong.",
    ["voucher", "outcome"],
)

OTHER = "other"  # a voucher id that is no flash sale: never a label of its own

# The drain's accept-to-persist lag buckets, in ms: the drain counts into them (in the
# sale's Redis) and the scrape reads them back as a histogram.
LAG_BUCKETS_MS = (50, 100, 200, 500, 1000, 2000, 5000, 10_000, 60_000)


@cache
def bucket_moves(voucher: int) -> Any:
    """The counter child of one bucketed sale's moves (vouchers/sale/buckets.py)."""
    return BUCKET_MOVES.labels(str(voucher))


@cache
def verdict_counter(voucher: int | str, verdict: str) -> Any:
    """The counter child of one (voucher, verdict): looked up once per process. The
    vouchers are the flash sales operators create, so the label stays bounded."""
    return SECKILL_REQUESTS.labels(str(voucher), verdict)


@cache
def drain_counters(shard: int) -> tuple[Any, Any, Any]:
    """(persisted, dead_lettered, batch size) of one shard."""
    label = str(shard)
    return (
        DRAIN_ORDERS.labels(label, "persisted"),
        DRAIN_ORDERS.labels(label, "dead_lettered"),
        DRAIN_BATCH.labels(label),
    )


@cache
def challenge_counter(voucher: int, outcome: str) -> Any:
    """The counter child of one (sale, challenge outcome)."""
    return CHALLENGES.labels(str(voucher), outcome)
