"""Beat-scheduled flash-sale jobs: thin wrappers around the services."""

from __future__ import annotations

from celery import shared_task

from . import services


@shared_task(ignore_result=True)
def update_activity_status() -> dict[str, int]:
    return services.activity_statuses_update()


@shared_task(ignore_result=True)
def preheat() -> int:
    return services.activities_preheat()
