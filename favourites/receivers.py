"""favourites' answers to other apps' deletions, connected in FavouritesConfig.ready().
A saved target that goes takes its rows with it; a row deleted past the services (a
cascade from its user, the admin) is counted and synced as an unsave would be."""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_delete

from blogs.models import Blog
from shops.models import Shop
from toolkit.api import saved
from vouchers.models import Voucher

from . import services
from .models import Favourite

_TARGETS = {saved.SHOP: Shop, saved.BLOG: Blog, saved.VOUCHER: Voucher}


def _target_deleted(kind: str) -> Any:
    def receiver(sender: Any, instance: Any, **_: Any) -> None:
        services.favourites_forget(kind=kind, object_id=instance.pk)

    return receiver


def _row_deleted(sender: Any, instance: Favourite, **_: Any) -> None:
    services.favourite_row_deleted(instance)


def connect() -> None:
    for kind, model in _TARGETS.items():
        post_delete.connect(
            _target_deleted(kind), sender=model, weak=False, dispatch_uid=f"favourites.{kind}"
        )
    post_delete.connect(_row_deleted, sender=Favourite, dispatch_uid="favourites.row_deleted")
