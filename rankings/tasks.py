"""The rankings' beat job: thin, the work is rankings.services'."""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from . import services


@shared_task(ignore_result=True, autoretry_for=(OperationalError,), retry_backoff=5, max_retries=3)
def compute_rankings(force: bool = False) -> list[int]:
    """Hourly: compute the cities whose lists are not of this week (decision 411)."""
    return services.compute_all(force=force)
