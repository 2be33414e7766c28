"""vouchers' answers to other apps' events, connected in VouchersConfig.ready()."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from shops.signals import shop_moved

from .caches import activities_evict


def _shop_moved(sender: Any, **_: Any) -> None:
    """The activity list names each sale's city (decision 396): a shop that moved city
    takes its sales along once the move commits (this process's snapshot at once, the
    others' within SECKILL_ACTIVITIES_MAX_AGE)."""
    transaction.on_commit(activities_evict, robust=True)


def connect() -> None:
    shop_moved.connect(_shop_moved, dispatch_uid="vouchers.caches.shop_moved")
