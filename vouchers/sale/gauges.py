"""The sale's gauges, read at scrape time (a collector named in settings'
METRICS_COLLECTORS) and by the admin's live page: stock left, each shard's drain, the
order jobs' depth. The instruments and constants they share with the sale's writers are
in vouchers/metrics.py."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from prometheus_client.core import GaugeMetricFamily, HistogramMetricFamily, Metric

from toolkit import clock
from toolkit.metrics import counter_totals

from .. import keys
from ..metrics import LAG_BUCKETS_MS, SECKILL_REQUESTS_NAME
from ..models import Voucher, VoucherOrder
from ..sale_orders import order_jobs, sale_redis
from . import stock
from .shard import accepted_ms


def sale_metrics() -> Iterable[Metric]:
    """Read at scrape time (one database query, two pipelined round trips to the sale's
    Redis): stock left per live sale, and per shard the drain's lag, pending orders, dead
    letters and accept-to-persist lag histogram; the order jobs' delay queue depth."""
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
    buckets, total = [], 0
    for bound in LAG_BUCKETS_MS:
        total += int(fields.get(f"le_{bound}".encode(), 0))
        buckets.append((repr(bound / 1000), float(total)))
    total += int(fields.get(b"le_inf", 0))
    buckets.append(("+Inf", float(total)))
    return buckets
