"""Shared pieces of the flash-sale tests."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.test import override_settings

from tests.factories import VoucherFactory
from toolkit import clock
from vouchers import tasks
from vouchers.models import Voucher
from vouchers.sale import buckets as sale_buckets
from vouchers.sale import drain, shard, stock


def start_sale(*, buckets: int = 1, **fields: object) -> Voucher:
    """A flash sale that began a minute ago, its stock split into `buckets` and loaded,
    consumer groups ready.

    Callers hold the `fake_clock` fixture, so the sale's time stands still until moved.
    """
    voucher = VoucherFactory(begin_time=clock.now() - timedelta(minutes=1), **fields)
    if buckets > 1:
        voucher.sale_shards = ",".join(map(str, sale_buckets.choose_shards(voucher.id, buckets)))
        voucher.save(update_fields=["sale_shards"])
    stock.stock_load([voucher])
    shard.ensure_groups()
    return voucher


def drain_all() -> int:
    """Persist every accepted order, as a recovering drain task would (re-reading what
    was left unacked, too); returns how many settled."""
    total = 0
    shards = range(settings.SECKILL_SHARDS)
    while drained := sum(drain.drain_shard(s, recover=True) for s in shards):
        total += drained
    return total


def drain_task_once() -> int:
    """One short run of the drain task, as beat starts it: it heals the shards whose Redis
    lost its state (vouchers/sale/heal.py) before draining them."""
    with override_settings(SECKILL_DRAIN_LOOP_SECONDS=0.2):
        return tasks.drain_seckill_orders()
