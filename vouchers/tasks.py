"""Beat-scheduled flash-sale jobs: thin wrappers around the services."""

from __future__ import annotations

import logging
import time

from celery import shared_task
from celery.signals import worker_ready
from django.conf import settings
from django.db import close_old_connections

from . import drain, heal, order_services, services, sold
from .shard import ensure_groups, shard_lock

log = logging.getLogger(__name__)


@worker_ready.connect
def _create_consumer_groups(**_: object) -> None:
    ensure_groups()  # before any drain runs: no NOGROUP, ever


@shared_task(ignore_result=True)
def update_activity_status() -> dict[str, int]:
    return services.activity_statuses_update()


@shared_task(ignore_result=True)
def preheat() -> int:
    return services.activities_preheat()


@shared_task(ignore_result=True)
def drain_seckill_orders() -> int:
    """Drain every shard this task can lock, round-robin, for SECKILL_DRAIN_LOOP_SECONDS,
    healing first any whose Redis lost its state (heal.py).

    Beat starts one every 10 s; a shard another task still drains is skipped. The first
    pass recovers what an earlier drainer left unacked, and so does the pass after a
    failure; the others read only new entries (one round trip per shard and poll). An
    order whose own failure was counted is thus retried once per run, a natural backoff.
    """
    locks = [
        (shard, lock)
        for shard in range(settings.SECKILL_SHARDS)
        # A short lease (renewed by the watchdog while we run): a killed drainer blocks
        # its shards for at most 10 s, until a later run takes them over.
        if (lock := shard_lock(shard, ttl=10, watchdog=True)).acquire()
    ]
    persisted = 0
    recover = True
    try:
        deadline = time.monotonic() + settings.SECKILL_DRAIN_LOOP_SECONDS
        while locks and time.monotonic() < deadline:
            if any(lock.lost for _, lock in locks):
                log.warning("seckill drain: a shard lock was lost; stopping this run")
                break
            try:
                # A shard whose Redis lost its state is healed first (its sale waits).
                for shard in heal.unverified([shard for shard, _ in locks]):
                    heal.shard_heal(shard)
                per_shard = [drain.drain_shard(shard, recover=recover) for shard, _ in locks]
            except drain.NOT_THEIR_FAULT:
                log.exception("seckill drain: database unavailable; nothing acked, retrying")
                close_old_connections()
                time.sleep(1)
                recover = True  # what was read but not acked must be read again
                continue
            recover = False
            persisted += sum(per_shard)
            if max(per_shard) < settings.SECKILL_DRAIN_BATCH:
                # No shard filled a batch (idle, or orders trickling in): let them gather
                # before the next pass, so they are stored in fewer, larger transactions.
                time.sleep(settings.SECKILL_DRAIN_LINGER)
    finally:
        for _, lock in locks:
            lock.release()
    return persisted


@shared_task(ignore_result=True)
def settle_due_orders() -> int:
    """Pay timeouts that came, and unit releases to retry."""
    return order_services.settle_due_orders()


@shared_task(ignore_result=True)
def cancel_overdue_orders() -> int:
    """Unpaid orders whose pay-timeout job was lost with Redis's state."""
    return order_services.cancel_overdue_orders()


@shared_task(ignore_result=True)
def count_sold() -> int:
    """Shops' `sold` counted again where paid coupons changed."""
    return sold.count_sold()
