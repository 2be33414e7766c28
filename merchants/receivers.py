"""merchants' answers to other apps' events, connected in MerchantsConfig.ready(): the
dashboard's cached numbers follow the writes that change them (decision 401)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from blogs.signals import shop_reviews_changed
from vouchers.signals import records_changed

from . import dashboard_cache


def _records_changed(sender: Any, *, shop_id: int, stamps: Iterable[datetime], **_: Any) -> None:
    """Coupons issued or write-offs made or reversed: the local days they are counted on
    go from the cache once the write commits, if those days have closed by then."""
    days = {timezone.localdate(stamp) for stamp in stamps}
    transaction.on_commit(lambda: dashboard_cache.days_changed(shop_id, days), robust=True)


def _reviews_changed(sender: Any, *, shop_id: int, **_: Any) -> None:
    transaction.on_commit(lambda: dashboard_cache.ratings_changed(shop_id), robust=True)


def connect() -> None:
    records_changed.connect(_records_changed, dispatch_uid="merchants.dashboard.records")
    shop_reviews_changed.connect(_reviews_changed, dispatch_uid="merchants.dashboard.reviews")
