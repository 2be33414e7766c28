"""blogs' answers to other apps' events, connected in BlogsConfig.ready()."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models.signals import post_delete, post_save

from accounts.signals import profile_changed
from follows.signals import follow_synced
from shops.models import Shop

from . import feed
from .caches import blog_evict, hot_evict, reviews_cache
from .models import Blog


def _follow_synced(sender: Any, *, user_id: int, target_id: int, following: bool, **_: Any) -> None:
    """A new follow brings the author's recent blogs into the feed; an unfollow takes
    them out."""
    if following:
        feed.feed_backfill(user_id=user_id, author_id=target_id)
    else:
        feed.feed_forget_author(user_id=user_id, author_id=target_id)


def _profile_changed(sender: Any, *, user_id: int, **_: Any) -> None:
    """Cached blog details show their author's nick name and icon: drop the author's,
    in a task (an author may have many blogs; the profile edit need not wait)."""
    from . import tasks

    tasks.evict_author_blogs.delay(user_id)


def _blog_deleted(sender: Any, instance: Blog, using: str, **_: Any) -> None:
    """However a blog goes (the author, admin, its author's account deleted in a
    cascade), its cached detail goes after the commit, and its shop's review statistics
    are counted again."""
    from . import tasks

    blog_id, user_id, shop_id = instance.pk, instance.user_id, instance.shop_id
    transaction.on_commit(lambda: blog_evict(blog_id), using=using, robust=True)
    transaction.on_commit(hot_evict, using=using, robust=True)
    counted = getattr(instance, "reviews_counted", False)  # by blogs.services.blog_delete
    if shop_id is not None and not counted:  # a review gone past the services: count again
        transaction.on_commit(
            lambda: tasks.recount_reviews.delay(user_id, shop_id), using=using, robust=True
        )


def _shop_deleted(sender: Any, instance: Any, using: str, **_: Any) -> None:
    """A deleted shop's reviews list answers 404 at once, not when its cache expires
    (its notes stay, about no shop)."""
    shop_id = instance.pk
    transaction.on_commit(lambda: reviews_cache().evict(shop_id), using=using, robust=True)


def _shop_saved(
    sender: Any, instance: Any, created: bool, using: str, update_fields: Any = None, **_: Any
) -> None:
    """The shop's replies show its name in the cached documents of the reviews they
    answer: a shop edit that may rename it drops those, in a task (a shop may have
    answered many reviews; the edit need not wait)."""
    from . import tasks

    if created or (update_fields is not None and "name" not in update_fields):
        return
    shop_id = instance.pk
    transaction.on_commit(
        lambda: tasks.evict_replied_reviews.delay(shop_id), using=using, robust=True
    )


def connect() -> None:
    follow_synced.connect(_follow_synced, dispatch_uid="blogs.feed.follow_synced")
    profile_changed.connect(_profile_changed, dispatch_uid="blogs.caches.profile_changed")
    post_delete.connect(_blog_deleted, sender=Blog, dispatch_uid="blogs.caches.blog_deleted")
    post_delete.connect(_shop_deleted, sender=Shop, dispatch_uid="blogs.caches.shop_deleted")
    post_save.connect(_shop_saved, sender=Shop, dispatch_uid="blogs.caches.shop_saved")
