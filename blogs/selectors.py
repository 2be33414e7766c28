"""Blog reads that hit the database."""

from __future__ import annotations

from typing import Any

import orjson
from django.db.models import QuerySet

from shops.errors import ShopNotFound
from shops.models import Shop

from .caches import HOT_CACHED, HOT_IDENT, REVIEWS_CACHED, blog_cache, hot_cache, reviews_cache
from .errors import BlogNotFound
from .models import Blog, BlogComment, ReviewReply


def visible_blogs() -> QuerySet[Blog]:
    """Notes a moderator has not hidden: the only ones any reader sees."""
    return Blog.objects.filter(status=Blog.Status.VISIBLE)


def blog_get(*, blog_id: int) -> Blog:
    blog = Blog.objects.select_related("user", "reply__shop").filter(pk=blog_id).first()
    if blog is None:
        raise BlogNotFound()
    return blog


def blog_document(*, blog_id: int) -> dict[str, Any]:
    """One blog as `blog_documents` gives them; 404 when there is no such blog."""
    found = blog_documents([blog_id])
    if not found:
        raise BlogNotFound()
    return found[0]


def blog_documents(blog_ids: list[int]) -> list[dict[str, Any]]:
    """Several blogs as the API shows them, from the blog cache, in `blog_ids`' order,
    those that no longer exist left out; the misses loaded in one query. Their like
    counts are the cache's, stale: readers overlay them live (likes.overlay)."""
    from .serializers import BlogSerializer

    def load(missing: list[int]) -> dict[int, dict[str, Any]]:
        # Hidden notes are as good as missing: every list built from these documents
        # (hot, feed, a shop's reviews) leaves them out, and the detail is a 404. The
        # shop's reply and its name come in the same query (outer joins).
        blogs = visible_blogs().select_related("user", "reply__shop").filter(pk__in=missing)
        return {blog.id: BlogSerializer(blog).data for blog in blogs}

    raws = blog_cache().lookup_many(blog_ids, load)
    return [orjson.loads(raw) for i in blog_ids if (raw := raws.get(i)) is not None]


def hot_page(*, offset: int, size: int) -> tuple[int, list[int]]:
    """(how many blogs there are, the ids of a page of them, most liked first, ties
    newest first): the first HOT_CACHED from the hot cache, later ones from a query."""

    def load() -> dict[str, Any]:
        ids = list(hot_blogs().values_list("id", flat=True)[:HOT_CACHED])
        return {"count": visible_blogs().count(), "ids": ids}

    hot = orjson.loads(hot_cache().get(HOT_IDENT, load) or b"{}")
    if offset >= hot["count"]:
        return hot["count"], []  # past the end: no OFFSET reaches the database
    if offset + size <= HOT_CACHED:
        return hot["count"], hot["ids"][offset : offset + size]
    return hot["count"], list(hot_blogs().values_list("id", flat=True)[offset : offset + size])


REVIEW_ORDER = {
    "new": ("-created_at", "-id"),
    "liked": ("-liked", "-id"),
    "helpful": ("-helpful", "-id"),
}


def shop_reviews_page(
    *,
    shop_id: int,
    sort: str,
    offset: int,
    size: int,
    with_photos: bool = False,
    stars: int | None = None,
) -> tuple[int, list[int]]:
    """(how many visible notes about the shop match, the ids of a page of them): newest
    first from the shop's reviews cache as far as it goes, most liked or most helpful first
    (the `blog_shop_liked` and `blog_shop_helpful` indexes), filtered, or further pages
    from a query. 404 for no such shop."""

    def load() -> dict[str, Any] | None:
        if not Shop.objects.filter(pk=shop_id).exists():
            return None
        reviews = shop_reviews(shop_id=shop_id, sort="new")
        return {"count": reviews.count(), "ids": list(reviews[:REVIEWS_CACHED])}

    raw = reviews_cache().get(shop_id, load)
    if raw is None:
        raise ShopNotFound()
    cached = orjson.loads(raw)
    if with_photos or stars is not None:
        # Filters walk the sort's index over the shop's notes and read their rows; only
        # the unfiltered list is cached (decision 378).
        if not cached["count"]:
            return 0, []
        matching = shop_reviews(shop_id=shop_id, sort=sort, with_photos=with_photos, stars=stars)
        count = matching.count()
        return count, list(matching[offset : offset + size]) if offset < count else []
    if offset >= cached["count"]:
        return cached["count"], []  # past the end: no OFFSET reaches the database
    if sort == "new" and offset + size <= REVIEWS_CACHED:
        return cached["count"], cached["ids"][offset : offset + size]
    return cached["count"], list(shop_reviews(shop_id=shop_id, sort=sort)[offset : offset + size])


def shop_reviews(
    *, shop_id: int, sort: str, with_photos: bool = False, stars: int | None = None
) -> QuerySet[Blog, int]:
    """The ids of the visible notes about the shop in `sort`'s order (REVIEW_ORDER): with
    `with_photos` only those with a picture, with `stars` only those rating it so."""
    visible = Blog.objects.filter(shop_id=shop_id, status=Blog.Status.VISIBLE)
    if with_photos:
        visible = visible.filter(images__0__isnull=False)  # a first picture: JSON on every DB
    if stars is not None:
        visible = visible.filter(rating=stars)
    return visible.order_by(*REVIEW_ORDER[sort]).values_list("id", flat=True)


def blog_exists(*, blog_id: int) -> None:
    """404 unless the blog exists (no author join: for likes and comments)."""
    if not visible_blogs().filter(pk=blog_id).exists():
        raise BlogNotFound()


def blog_shop(*, blog_id: int) -> int | None:
    """The shop a visible note is about (None for a note about no shop); 404 unless the
    note is visible. A like's one read: its existence check and what the like teaches."""
    found = visible_blogs().filter(pk=blog_id).values("shop_id").first()
    if found is None:
        raise BlogNotFound()
    return found["shop_id"]


def blog_stored(*, blog_id: int) -> bool:
    """Whether the blog's row exists, hidden or not (an Idempotency-Key's replay)."""
    return Blog.objects.filter(pk=blog_id).exists()


def hot_blogs() -> QuerySet[Blog]:
    """Most liked first; ties newest first (the `blog_hot` index)."""
    return visible_blogs().select_related("user").order_by("-liked", "-id")


def blog_comments(*, blog_id: int) -> QuerySet[BlogComment]:
    blog_exists(blog_id=blog_id)
    return (
        BlogComment.objects.select_related("user")
        .filter(blog_id=blog_id, status=BlogComment.Status.VISIBLE)
        .order_by("id")
    )


def reply_get(*, reply_id: int) -> ReviewReply:
    return ReviewReply.objects.select_related("shop").get(pk=reply_id)


def shop_exists(*, shop_id: int) -> None:
    if not Shop.objects.filter(pk=shop_id).exists():
        raise ShopNotFound()
