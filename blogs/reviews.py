"""A shop's reviews: the notes about it. Each user's newest visible rated note about a
shop is their rating of it (ShopRating); the shop's review count (its reviewers, each
once however many notes they wrote), rating histogram and score are counted again from
the rows after every change, under the shop's row lock, so they are exact whatever ran
concurrently (decision 286); so are the averages of the ratings' sub-scores (decision 376).

Lock order: the shop's row first, then the note's. A note's insert share-locks the shop
row (its foreign key): two of them that then both wanted the row exclusively would
deadlock on InnoDB, so the services take it first (`lock_shops`)."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from django.db.models import Count, Sum
from tqdm import tqdm

from shops.models import SUB_SCORES, Shop
from shops.services import review_stats_save

from .caches import reviews_cache
from .errors import BlogNotFound
from .models import STARS_MAX, STARS_MIN, Blog, ShopRating
from .signals import shop_reviews_changed


def lock_shops(shop_ids: Iterable[int | None]) -> None:
    """Lock the shops' rows, in id order (every writer takes them in the same order)."""
    ids = sorted({shop_id for shop_id in shop_ids if shop_id is not None})
    if ids:
        list(Shop.objects.select_for_update().filter(pk__in=ids).order_by("pk").values("pk"))


def reviews_changed(*, user_id: int, shop_ids: Iterable[int | None]) -> None:
    """After a note of `user_id` about these shops was created, edited, deleted, hidden
    or restored (in the same transaction, with the shops locked by `lock_shops`): the
    user's rating of each shop and each shop's statistics are counted again, and whoever
    keeps numbers of the shop's reviews is told (`shop_reviews_changed`)."""
    for shop_id in sorted({shop_id for shop_id in shop_ids if shop_id is not None}):
        _rate_again(user_id=user_id, shop_id=shop_id)
        _recount(shop_id)
        _evict_on_commit(shop_id)
        shop_reviews_changed.send(sender=Blog, shop_id=shop_id)


def _evict_on_commit(shop_id: int) -> None:
    transaction.on_commit(lambda: reviews_cache().evict(shop_id), robust=True)


def review_changed_elsewhere(*, user_id: int, shop_id: int) -> None:
    """`reviews_changed` in a transaction of its own, for the paths that bypass the
    services (blogs.receivers)."""
    with transaction.atomic():
        lock_shops([shop_id])
        reviews_changed(user_id=user_id, shop_ids=[shop_id])


def _rate_again(*, user_id: int, shop_id: int) -> None:
    """The user's rating of the shop becomes their newest visible rated note's stars, or
    goes when no such note is left."""
    newest = (
        Blog.objects.filter(
            user_id=user_id, shop_id=shop_id, status=Blog.Status.VISIBLE, rating__isnull=False
        )
        .order_by("-created_at", "-id")
        .values("id", "rating", *SUB_SCORES)
        .first()
    )
    if newest is None:
        ShopRating.objects.filter(user_id=user_id, shop_id=shop_id).delete()
        return
    # The note may have rated another shop, or been another author's, until this change:
    # that row goes first (a note carries one rating; both shops are locked already).
    ShopRating.objects.filter(blog_id=newest["id"]).exclude(
        user_id=user_id, shop_id=shop_id
    ).delete()
    stars = newest["rating"]
    assert stars is not None  # rating__isnull=False
    sub_scores = {name: newest[name] for name in SUB_SCORES}
    ShopRating.objects.update_or_create(
        user_id=user_id,
        shop_id=shop_id,
        defaults={"blog_id": newest["id"], "stars": stars, **sub_scores},
    )


def recount(*, shop_id: int) -> None:
    """Count the shop's reviews and ratings again and store them (its cached document is
    evicted after commit), under the shop's row lock: a count read beside a writer's
    uncommitted change would otherwise be stored after it commits."""
    with transaction.atomic():
        lock_shops([shop_id])
        _recount(shop_id)


def _recount(shop_id: int) -> None:
    histogram = dict.fromkeys(range(STARS_MIN, STARS_MAX + 1), 0)
    rows = ShopRating.objects.filter(shop_id=shop_id).values("stars").annotate(n=Count("id"))
    for row in rows:
        histogram[row["stars"]] = row["n"]
    # One review per reviewer, however many notes they wrote about the shop (decision 286):
    # counted from the rows, so a note's create, delete, hide or restore cannot drift it.
    reviews = (
        Blog.objects.filter(shop_id=shop_id, status=Blog.Status.VISIBLE)
        .values("user_id")
        .distinct()
        .count()
    )
    # Each sub-score's stars added up and counted over the same ratings (one per user);
    # a rating without that sub-score counts for neither (COUNT skips NULLs).
    totals = ShopRating.objects.filter(shop_id=shop_id).aggregate(
        **{f"{name}_sum": Sum(name) for name in SUB_SCORES},
        **{f"{name}_count": Count(name) for name in SUB_SCORES},
    )
    sub_scores = {
        name: (totals[f"{name}_sum"] or 0, totals[f"{name}_count"]) for name in SUB_SCORES
    }
    review_stats_save(shop_id=shop_id, reviews=reviews, histogram=histogram, sub_scores=sub_scores)


def recount_all(*, progress: bool = False) -> int:
    """Every author's rating of every shop and every shop's statistics counted again from
    the notes (a repair, and what bulk loads call); returns how many shops."""
    pairs = Blog.objects.filter(shop__isnull=False).values_list("user_id", "shop_id").distinct()
    for user_id, shop_id in tqdm(pairs.iterator(), unit="rating", disable=not progress):
        review_changed_elsewhere(user_id=user_id, shop_id=shop_id)
    orphans = ShopRating.objects.exclude(
        blog__status=Blog.Status.VISIBLE, blog__rating__isnull=False
    ).values_list("user_id", "shop_id")
    for user_id, shop_id in orphans:
        review_changed_elsewhere(user_id=user_id, shop_id=shop_id)
    shop_ids = list(Shop.objects.values_list("id", flat=True))
    for shop_id in tqdm(shop_ids, unit="shop", disable=not progress):
        recount(shop_id=shop_id)
    return len(shop_ids)


def note_locked_with_shops(blog_id: int, *, also: int | None = None) -> Blog:
    """The note, locked, with the row of the shop it is about (and of `also`) locked
    first, as this module orders its locks; 404 when missing. Should the note move to
    another shop between the read and the locks, the locks are taken again."""
    note = Blog.objects.filter(pk=blog_id)
    while True:
        shop_id = note.values_list("shop_id", flat=True).first()
        lock_shops([shop_id, also])
        # Whoever moves a note holds its shop's lock, which is ours now: read again, the
        # shop can no longer change, and the note's lock comes after its shop's.
        if note.values_list("shop_id", flat=True).first() == shop_id:
            break
    blog = note.select_for_update().first()
    if blog is None:
        raise BlogNotFound()
    return blog
