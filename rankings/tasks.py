"""The rankings' beat job: thin, the work is rankings.services'."""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from toolkit.periodic import task_succeeded

from . import services

# The job's beat entry (settings.CELERY_BEAT_SCHEDULE), as /metrics names it.
COMPUTE_RANKINGS = "compute-rankings"


@shared_task(ignore_result=True, autoretry_for=(OperationalError,), retry_backoff=5, max_retries=3)
def compute_rankings(force: bool = False) -> list[int]:
    """Hourly: compute the cities whose lists are not of this week (decision 411). A run
    that ends without an error, computing or finding every list current, is a success on
    /metrics, watched by an alert (decision 420)."""
    done = services.compute_all(force=force)
    task_succeeded(COMPUTE_RANKINGS)
    return done
