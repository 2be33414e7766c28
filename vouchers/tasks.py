"""Beat-scheduled voucher jobs: thin wrappers around the services."""

from __future__ import annotations

from celery import shared_task
from celery.signals import worker_ready

from . import services
from .coupons import jobs, sold
from .sale import drain
from .sale.shard import ensure_groups


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
    """Accepted flash-sale orders into the database (beat: every 10 s)."""
    return drain.drain_run()


@shared_task(ignore_result=True)
def settle_due_orders() -> int:
    """Pay timeouts that came, and unit releases to retry."""
    return jobs.settle_due_orders()


@shared_task(ignore_result=True)
def cancel_overdue_orders() -> int:
    """Unpaid orders whose pay-timeout job was lost with Redis's state."""
    return jobs.cancel_overdue_orders()


@shared_task(ignore_result=True)
def count_sold() -> int:
    """Shops' `sold` counted again where paid coupons changed."""
    return sold.count_sold()
