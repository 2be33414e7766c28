"""The flash sale's metrics (dianping/metrics.py has the mechanics; docs/operations.md
lists them): verdicts counted where they are decided, the drain's work counted in the
Celery process that does it, and gauges read from the sale's Redis at scrape time."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from django.conf import settings
from prometheus_client import Counter, Histogram
from prometheus_client.core import GaugeMetricFamily, HistogramMetricFamily, Metric

from dianping import clock
from dianping.metrics import counter_totals
from dianping.redis import keys

if TYPE_CHECKING:
    from .models import Voucher

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

OTHER = "other"  # a voucher id that is no flash sale: never a label of its own


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


def sale_metrics() -> Iterable[Metric]:
    """Read at scrape time (one database query, two pipelined round trips to the sale's
    Redis): stock left per live sale, and per shard the drain's lag, pending orders, dead
    letters and accept-to-persist lag histogram; the order jobs' delay queue depth."""
    from .coupons.jobs import order_jobs
    from .models import Voucher
    from .sale import stock

    now = clock.now()
    live = list(
        Voucher.objects.filter(type=Voucher.Kind.SECKILL, begin_time__lte=now, end_time__gt=now)
        .exclude(status=Voucher.Status.VOID)
        .values_list("id", flat=True)
    )
    stock_left = GaugeMetricFamily(
        "dianping_seckill_stock_left",
        "Units left in Redis per flash sale running now.",
        labels=["voucher"],
    )
    bucket_stock = GaugeMetricFamily(
        "dianping_seckill_bucket_stock_left",
        "Units left in each bucket of a flash sale split across shards (buckets.py).",
        labels=["voucher", "shard"],
    )
    for voucher_id, per_shard in stock.live_stock_by_bucket(live).items():
        units = stock.units_left(per_shard)
        if units is not None:  # not loaded yet: the first attempt loads it
            stock_left.add_metric([str(voucher_id)], units)
        if len(per_shard) > 1:
            for shard, units in per_shard.items():
                bucket_stock.add_metric([str(voucher_id), str(shard)], units or 0)

    lag = GaugeMetricFamily(
        "dianping_drain_lag_seconds",
        "Age of the oldest accepted order not yet persisted, per shard (0: drained).",
        labels=["shard"],
    )
    pending = GaugeMetricFamily(
        "dianping_seckill_pending_orders",
        "Accepted orders not yet in the database, per shard.",
        labels=["shard"],
    )
    dead = GaugeMetricFamily(
        "dianping_seckill_dead_letters",
        "Orders in the dead-letter stream, per shard (manage.py seckill_dead_letters).",
        labels=["shard"],
    )
    persist_lag = HistogramMetricFamily(
        "dianping_drain_persist_lag_seconds",
        "Accept-to-persist lag of drained orders, per shard (kept in Redis by the drain; no _sum).",
        labels=["shard"],
    )
    for state in shard_states(range(settings.SECKILL_SHARDS)):
        label = [str(state.shard)]
        lag.add_metric(label, state.lag_seconds)
        pending.add_metric(label, state.pending)
        dead.add_metric(label, state.dead_letters)
        persist_lag.add_metric(label, _cumulative(state.persist_lag), sum_value=None)

    stall = GaugeMetricFamily(
        "dianping_drain_stall_threshold_seconds",
        "Drain lag past which /api/health says the drain stalled (SECKILL_DRAIN_STALL_SECONDS).",
    )
    stall.add_metric([], settings.SECKILL_DRAIN_STALL_SECONDS)

    jobs = GaugeMetricFamily(
        "dianping_delay_queue_depth",
        "Jobs waiting or leased in a delay queue (order-pay-timeout: pay timeouts, releases).",
        labels=["queue"],
    )
    jobs.add_metric(["order-pay-timeout"], order_jobs().pending())
    return [stock_left, bucket_stock, lag, pending, dead, persist_lag, stall, jobs]


@dataclass(frozen=True)
class ShardState:
    """What a shard's Redis says of its drain, read at one moment."""

    shard: int
    lag_seconds: float  # the oldest accepted order not yet persisted (0: drained)
    pending: int  # accepted orders not yet in the database
    dead_letters: int
    persist_lag: dict[bytes, bytes]  # the drain's histogram: le_<ms> and le_inf counts


def shard_states(shards: Iterable[int]) -> list[ShardState]:
    """Each shard's drain state, in one pipelined round trip to the sale's Redis."""
    from .sale.shard import accepted_ms, sale_redis

    shards = list(shards)
    pipe = sale_redis().pipeline(transaction=False)
    for shard in shards:
        pipe.xrange(keys.seckill_orders(shard), count=1)
        pipe.hlen(keys.seckill_pending(shard))
        pipe.xlen(keys.seckill_dead_letters(shard))
        pipe.hgetall(keys.seckill_lag(shard))
    replies = pipe.execute()
    now_ms = clock.now_ms()
    states = []
    for index, shard in enumerate(shards):
        oldest, pending, dead, histogram = replies[index * 4 : index * 4 + 4]
        age = (now_ms - accepted_ms(oldest[0][0])) / 1000 if oldest else 0.0
        states.append(ShardState(shard, max(age, 0.0), int(pending), int(dead), histogram))
    return states


@dataclass(frozen=True)
class SaleSnapshot:
    """One flash sale's numbers for the admin's live page: the same sources `/metrics`
    reads (the verdict counters summed over every process, the sale's Redis, the
    database), so the page, a scrape and Prometheus agree."""

    voucher_id: int
    at_ms: int
    stock_left: int | None  # None: not loaded into Redis yet
    accepted: int
    refused: dict[str, int]  # verdict -> attempts
    persisted: int  # its orders in the database
    # One per bucket, its own shard first: the bucket's units left (None: not loaded) and
    # its shard's drain (shared with the other sales in that shard).
    buckets: list[tuple[int | None, ShardState]]

    @property
    def drain(self) -> ShardState:
        """The drain of the sale's own shard (its first bucket)."""
        return self.buckets[0][1]


def sale_snapshot(voucher: Voucher) -> SaleSnapshot:
    from .models import VoucherOrder
    from .sale import stock

    label = str(voucher.id)
    accepted, refused = 0, dict[str, int]()
    for labels, value in counter_totals(SECKILL_REQUESTS_NAME):
        if labels.get("voucher") != label or not value:
            continue
        if labels["verdict"] == "accepted":
            accepted += int(value)
        else:
            refused[labels["verdict"]] = refused.get(labels["verdict"], 0) + int(value)
    per_shard = stock.live_stock_by_bucket([voucher.id])[voucher.id]
    return SaleSnapshot(
        voucher_id=voucher.id,
        at_ms=clock.now_ms(),
        stock_left=stock.units_left(per_shard),
        accepted=accepted,
        refused=refused,
        persisted=VoucherOrder.objects.filter(voucher_id=voucher.id).count(),
        buckets=list(zip(per_shard.values(), shard_states(per_shard), strict=True)),
    )


def _cumulative(fields: dict[bytes, bytes]) -> list[tuple[str, float]]:
    """The drain's per-bucket counts (le_<ms>, le_inf) as Prometheus's cumulative buckets."""
    from .sale.drain import LAG_BUCKETS_MS

    buckets, total = [], 0
    for bound in LAG_BUCKETS_MS:
        total += int(fields.get(f"le_{bound}".encode(), 0))
        buckets.append((repr(bound / 1000), float(total)))
    total += int(fields.get(b"le_inf", 0))
    buckets.append(("+Inf", float(total)))
    return buckets
