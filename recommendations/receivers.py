"""The events "guess you like" learns from, each after its commit (connected in
RecommendationsConfig.ready()): a shop saved, a shop rated (a ShopRating row written,
whichever path wrote it), a note about a shop liked. A rating's deletion leaves the
user's rated set. Shop page views are not among them (decision 406). A deleted shop's
or user's own keys go after the deletion commits (decision 421)."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models.signals import post_delete, post_save

from accounts.models import User
from blogs.models import Blog, ShopRating
from blogs.signals import note_liked
from favourites.models import Favourite
from shops.models import Shop

from . import store


def _saved(sender: Any, instance: Favourite, created: bool, **_: Any) -> None:
    if created and instance.kind == Favourite.Kind.SHOP:
        user_id, shop_id = instance.user_id, instance.object_id
        transaction.on_commit(
            lambda: store.interaction_record(user_id=user_id, shop_id=shop_id), robust=True
        )


def _rated(sender: Any, instance: ShopRating, **_: Any) -> None:
    user_id, shop_id = instance.user_id, instance.shop_id

    def after() -> None:
        store.rated_sync(user_id=user_id, shop_id=shop_id)
        store.interaction_record(user_id=user_id, shop_id=shop_id)

    transaction.on_commit(after, robust=True)


def _unrated(sender: Any, instance: ShopRating, **_: Any) -> None:
    user_id, shop_id = instance.user_id, instance.shop_id
    transaction.on_commit(lambda: store.rated_sync(user_id=user_id, shop_id=shop_id), robust=True)


def _liked(sender: Any, liker_id: int, shop_id: int | None, **_: Any) -> None:
    if shop_id is not None:
        transaction.on_commit(
            lambda: store.interaction_record(user_id=liker_id, shop_id=shop_id), robust=True
        )


def _shop_deleted(sender: Any, instance: Shop, using: str, **_: Any) -> None:
    shop_id = instance.pk  # the collector clears it after the signals
    transaction.on_commit(lambda: store.shop_forget(shop_id=shop_id), using=using, robust=True)


def _user_deleted(sender: Any, instance: User, using: str, **_: Any) -> None:
    user_id = instance.pk
    transaction.on_commit(lambda: store.user_forget(user_id=user_id), using=using, robust=True)


def connect() -> None:
    post_save.connect(_saved, sender=Favourite, dispatch_uid="recommendations.saved")
    post_save.connect(_rated, sender=ShopRating, dispatch_uid="recommendations.rated")
    post_delete.connect(_unrated, sender=ShopRating, dispatch_uid="recommendations.unrated")
    note_liked.connect(_liked, sender=Blog, dispatch_uid="recommendations.liked")
    post_delete.connect(_shop_deleted, sender=Shop, dispatch_uid="recommendations.shop_deleted")
    post_delete.connect(_user_deleted, sender=User, dispatch_uid="recommendations.user_deleted")
