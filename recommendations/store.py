"""The co-occurrence model in Redis (decision 405): each interaction, after its commit,
enters the user's bounded history and pairs with the shops already there, one script
call per side of each pair; `recommendations_rebuild` rewrites everything from the
database with the in-memory model, whose rules these are (recommendations.model)."""

from __future__ import annotations

from collections.abc import Iterator

from blogs import keys as blogs_keys
from blogs.models import Blog, ShopRating
from favourites.models import Favourite
from toolkit import clock
from toolkit.redis.client import get_redis
from toolkit.redis.scripts import lua

from . import keys
from .model import HISTORY, NEIGHBOURS, CoOccurrence

_REMEMBER = lua(__file__, "remember.lua")
_PAIR = lua(__file__, "pair.lua")


def interaction_record(*, user_id: int, shop_id: int, at_ms: int | None = None) -> None:
    """The user saved, rated or liked a review of the shop: it joins their history and,
    if new there, pairs with what the history held (at most HISTORY shops: 1 + 2·HISTORY
    script calls, pipelined, on the event's path, never on a read)."""
    at = clock.now_ms() if at_ms is None else at_ms
    new, *before = _REMEMBER([keys.recs_history(user_id)], [shop_id, at, HISTORY])
    if not new:
        return
    others = [int(member) for member in before if int(member) != shop_id]
    client = get_redis()
    pipe = client.pipeline(transaction=False)
    pipe.zincrby(keys.recs_popularity(), 1, shop_id)
    if others:
        pipe.zmscore(keys.recs_popularity(), [str(other) for other in others])
    replies = pipe.execute()
    users = int(replies[0])
    if not others:
        return
    calls = []
    for other, other_users in zip(others, replies[1], strict=True):
        product = users * int(other_users or 1)
        calls.append(
            (
                [keys.recs_counts(shop_id), keys.recs_neighbours(shop_id)],
                [other, product, NEIGHBOURS],
            )
        )
        calls.append(
            ([keys.recs_counts(other), keys.recs_neighbours(other)], [shop_id, product, NEIGHBOURS])
        )
    for reply in _PAIR.run_many(calls):
        if isinstance(reply, Exception):
            raise reply


def rated_sync(*, user_id: int, shop_id: int) -> None:
    """Make the user's rated set agree with their committed rating of the shop."""
    key = keys.recs_rated(user_id)
    if ShopRating.objects.filter(user_id=user_id, shop_id=shop_id).exists():
        get_redis().sadd(key, shop_id)
    else:
        get_redis().srem(key, shop_id)


def shop_forget(*, shop_id: int) -> None:
    """A deleted shop's own keys go: its neighbours with their counts and its popularity,
    in one round trip (a DEL each: a Cluster's pipeline refuses a DEL of several keys).
    Its id left in other shops' neighbour lists and in histories is skipped by the read
    (no card for it) and gone at the next rebuild (decision 421)."""
    pipe = get_redis().pipeline(transaction=False)
    pipe.delete(keys.recs_counts(shop_id))
    pipe.delete(keys.recs_neighbours(shop_id))
    pipe.zrem(keys.recs_popularity(), shop_id)
    pipe.execute()


def user_forget(*, user_id: int) -> None:
    """A deleted user's history and rated set go (one tag, one DEL); the pairs their
    history made stay counted until the next rebuild (decision 421)."""
    get_redis().delete(keys.recs_history(user_id), keys.recs_rated(user_id))


def interactions() -> Iterator[tuple[int, int, float]]:
    """Every interaction the database and the likes' sets hold, as (user, shop, ms): a
    saved shop, a rating, a like of a note about a shop."""
    for user_id, shop_id, at in Favourite.objects.filter(kind=Favourite.Kind.SHOP).values_list(
        "user_id", "object_id", "created_at"
    ):
        yield user_id, shop_id, at.timestamp() * 1000
    for user_id, shop_id, at in ShopRating.objects.values_list("user_id", "shop_id", "updated_at"):
        yield user_id, shop_id, at.timestamp() * 1000
    reviews = list(
        Blog.objects.filter(shop_id__isnull=False, status=Blog.Status.VISIBLE).values_list(
            "id", "shop_id"
        )
    )
    client = get_redis()
    for start in range(0, len(reviews), 500):
        chunk = reviews[start : start + 500]
        pipe = client.pipeline(transaction=False)
        for blog_id, _ in chunk:
            pipe.zrange(blogs_keys.blog_likes(blog_id), 0, -1, withscores=True)
        for (_, shop_id), likers in zip(chunk, pipe.execute(), strict=True):
            for liker, at in likers:
                yield int(liker), shop_id, float(at)


REBUILD_BATCH = 1000  # commands a rebuild sends at a time


def recommendations_rebuild() -> tuple[int, int]:
    """Rewrite every recommendations key from the database (after Redis lost data, or to
    renormalise weights that incremental updates leave behind as popularity moves):
    (users with a history, shops with neighbours). The keys are deleted first: reads in
    the meantime fall back to popular shops nearby."""
    model = CoOccurrence().add_all(interactions())
    client = get_redis()
    stale = list(client.scan_iter(match=keys.recs_pattern(), count=1000))
    for start in range(0, len(stale), 500):
        client.delete(*stale[start : start + 500])
    pipe = client.pipeline(transaction=False)

    def sent_when_full() -> None:
        # Each loop can be millions long: never one pipeline (or one reply) of them all.
        if len(pipe) >= REBUILD_BATCH:
            pipe.execute()

    for user_id, history in model.histories.items():
        pipe.zadd(keys.recs_history(user_id), _int_scores(history))
        sent_when_full()
    for user_id, shop_id in ShopRating.objects.values_list("user_id", "shop_id").iterator():
        pipe.sadd(keys.recs_rated(user_id), shop_id)
        sent_when_full()
    if model.popularity:
        pipe.zadd(keys.recs_popularity(), {str(s): n for s, n in model.popularity.items()})
    with_neighbours = 0
    for shop_id in model.pairs:
        neighbours = model.neighbours(shop_id)
        if neighbours:
            with_neighbours += 1
            pipe.zadd(keys.recs_neighbours(shop_id), {str(b): w for b, w in neighbours})
            counts = model.pairs[shop_id]
            pipe.hset(keys.recs_counts(shop_id), mapping={b: counts[b] for b, _ in neighbours})
            sent_when_full()
    pipe.execute()
    return len(model.histories), with_neighbours


def _int_scores(history: dict[int, float]) -> dict[str, float]:
    return {str(shop_id): int(at) for shop_id, at in history.items()}
