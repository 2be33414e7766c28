"""The shops' periodic work (beat entries in settings.CELERY_BEAT_SCHEDULE)."""

from __future__ import annotations

from celery import shared_task

from toolkit.periodic import task_succeeded

from . import preheat, services


@shared_task(ignore_result=True)
def preheat_hot_shops() -> dict[str, int]:
    """Preheat the hot shops; records its success for /metrics."""
    done = {"preheated": preheat.shops_preheat()}
    task_succeeded("preheat-hot-shops")
    return done


@shared_task(ignore_result=True)
def watch_shop_bloom() -> dict[str, int]:
    """Watch the shop-id Bloom filter, rebuilt larger when full: a task of its own, so a
    failed preheat never stops the watch, nor a long rebuild the preheat."""
    done = services.shop_bloom_watch()
    task_succeeded("watch-shop-bloom")
    return done
