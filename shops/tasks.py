"""The shops' periodic work (beat entries in settings.CELERY_BEAT_SCHEDULE)."""

from __future__ import annotations

from celery import shared_task

from toolkit.periodic import task_succeeded

from . import preheat


@shared_task(ignore_result=True)
def preheat_hot_shops() -> dict[str, int]:
    """Preheat the hot shops; records its success for /metrics."""
    done = {"preheated": preheat.shops_preheat()}
    task_succeeded("preheat-hot-shops")
    return done
