""" "Guess you like": the co-occurrence model (in memory and kept in Redis from saves,
ratings and likes of reviews), `GET /api/recommendations` (signed in; never a shop the
reader rated or saved), its fallback to popular shops nearby, and the rebuild."""

from __future__ import annotations

import math
from typing import cast

import pytest
from django.core.management import call_command

from blogs.likes import blog_like
from favourites.services import favourite_save, favourite_unsave
from recommendations import keys, store
from recommendations.model import HISTORY, CoOccurrence, rank
from recommendations.selectors import neighbour_lists
from recommendations.store import interaction_record
from shops.services import shop_geo_rebuild
from tests.factories import (
    BlogFactory,
    CityFactory,
    ShopFactory,
    ShopTypeFactory,
    UserFactory,
)
from tests.helpers import client_for

pytestmark = pytest.mark.django_db(transaction=True)


def _save(user, *shops) -> None:
    for shop in shops:
        favourite_save(user_id=user.id, kind="shop", object_id=shop.id)


def _rate(user, shop, stars=4) -> None:
    body = {"title": "探店", "content": "好吃", "shop_id": shop.id, "rating": stars}
    assert client_for(user).post("/api/blogs", body, format="json").status_code == 201


def _suggested(user, query: str = "") -> list[int]:
    response = client_for(user).get(f"/api/recommendations{query}")
    assert response.status_code == 200, response.content
    results = response.json()["results"]
    assert all(shop["saved"] is False for shop in results)
    return [shop["id"] for shop in results]


def test_the_model_weighs_pairs_by_both_shops_popularity_and_ranks_their_sums() -> None:
    model = CoOccurrence(history=2).add_all(
        [(1, 10, 1), (1, 20, 2), (2, 10, 3), (2, 20, 4), (2, 30, 5), (3, 10, 6), (3, 10, 7)]
    )
    # User 2's third shop pairs only with the two before it (history 2 at the time: 10, 20).
    assert model.pairs[10] == {20: 2, 30: 1}
    assert model.popularity == {10: 3, 20: 2, 30: 1}  # user 3's repeat counts once
    assert model.neighbours(10) == [(20, 2 / math.sqrt(6)), (30, 1 / math.sqrt(3))]
    assert model.recent(2) == [30, 20]  # the oldest left the history of two
    lists = [model.neighbours(10), model.neighbours(30)]
    assert rank([10, 30], lists, exclude=[], limit=5) == [20]
    assert rank([10], [model.neighbours(10)], exclude=[20], limit=5) == [30]


def test_saves_teach_co_occurrence_and_the_reader_gets_the_neighbours() -> None:
    shops = ShopFactory.create_batch(4)
    a, b, c, d = shops
    for user in UserFactory.create_batch(3):
        _save(user, a, b)
    _save(UserFactory(), a, c)
    reader = UserFactory()
    _save(reader, a)

    suggested = _suggested(reader)
    assert suggested[:2] == [b.id, c.id]  # b shares a with three users, c with one
    assert a.id not in suggested  # saved
    assert d.id in suggested  # a popular filler: ten are asked for
    # Set when the pair was last seen together: 3 users of each, then (the norm moves
    # on with later events only where they touch the pair; the rebuild renormalises).
    assert _weight(a.id, b.id) == pytest.approx(3 / math.sqrt(3 * 3))


def _weight(shop_id: int, other: int) -> float:
    from toolkit.redis.client import get_redis

    found = get_redis().zscore(keys.recs_neighbours(shop_id), other)
    assert found is not None
    return float(found)


def test_never_a_shop_the_reader_rated_or_saved_even_among_the_popular_ones() -> None:
    a, b, c = ShopFactory.create_batch(3)
    others = ShopFactory.create_batch(3, comments=100)  # the most popular of all
    for user in UserFactory.create_batch(2):
        _save(user, a, b, c, *others)
    reader = UserFactory()
    _save(reader, a, others[0])
    _rate(reader, b)
    _rate(reader, others[1])

    suggested = _suggested(reader)
    assert set(suggested) == {c.id, others[2].id}  # only two shops left to suggest
    mine = {a.id, b.id, others[0].id, others[1].id}
    assert not mine & set(_suggested(reader, "?x=121.47&y=31.23"))
    # Twenty newer interactions push them out of the reader's history: still left out.
    for n in range(HISTORY):
        interaction_record(user_id=reader.id, shop_id=10**6 + n)
    assert not mine & set(_suggested(reader))
    # Unsaving makes a shop a candidate again; a rating stays a reason to leave it out.
    favourite_unsave(user_id=reader.id, kind="shop", object_id=others[0].id)
    assert others[0].id in _suggested(reader)
    assert others[1].id not in _suggested(reader)


def test_a_like_of_a_review_is_an_interaction_with_its_shop() -> None:
    shop = ShopFactory()
    note = BlogFactory(shop=shop)
    untied = BlogFactory()  # a note about no shop teaches nothing
    reader = UserFactory()
    blog_like(blog_id=note.id, user_id=reader.id)
    blog_like(blog_id=untied.id, user_id=reader.id)

    from toolkit.redis.client import get_redis

    history = cast("list[bytes]", get_redis().zrange(keys.recs_history(reader.id), 0, -1))
    assert [int(member) for member in history] == [shop.id]


def test_a_reader_with_no_history_gets_the_popular_shops_near_them() -> None:
    near = ShopTypeFactory()
    busy = ShopFactory(type=near, x=121.48, y=31.23, comments=50, sold=1)
    busier = ShopFactory(type=near, x=121.47, y=31.22, comments=50, sold=9)
    quiet = ShopFactory(type=near, x=121.47, y=31.23, comments=1)
    far = ShopFactory(type=near, x=116.40, y=39.90, comments=900)  # Beijing
    shop_geo_rebuild()
    reader = UserFactory()

    assert _suggested(reader, "?x=121.4737&y=31.2304") == [busier.id, busy.id, quiet.id]
    assert _suggested(reader) == [busier.id, busy.id, quiet.id]  # the centre by default
    assert _suggested(reader, "?x=116.40&y=39.90") == [far.id]
    # Nowhere near any shop: the most popular of all.
    assert _suggested(reader, "?x=0&y=0")[:2] == [far.id, busier.id]


def test_a_reader_with_no_history_gets_the_popular_shops_of_the_city_they_chose() -> None:
    kind = ShopTypeFactory()
    hangzhou = CityFactory(code="hangzhou", x=120.1551, y=30.2741)
    lake = ShopFactory(type=kind, city=hangzhou, x=120.155, y=30.274, comments=5)
    home = ShopFactory(type=kind, x=121.4737, y=31.2304, comments=900)  # the default city
    shop_geo_rebuild()
    reader = UserFactory()

    # Near its own centre (no point given), and only its shops even where none is near.
    assert _suggested(reader, "?city=hangzhou") == [lake.id]
    assert _suggested(reader, "?city=hangzhou&x=0&y=0") == [lake.id]
    assert _suggested(reader) == [home.id]
    assert client_for(reader).get("/api/recommendations?city=atlantis").status_code == 404


def test_signed_in_only_and_a_point_needs_both_coordinates(api, user) -> None:
    assert api.get("/api/recommendations").status_code == 401
    response = client_for(user).get("/api/recommendations?x=121.47")
    assert response.status_code == 400
    assert client_for(user).get("/api/recommendations?x=200&y=31").status_code == 400


@pytest.mark.parametrize("batch", [1000, 2], ids=["one-batch", "many-batches"])
def test_the_rebuild_writes_what_the_events_wrote(batch, monkeypatch) -> None:
    monkeypatch.setattr("recommendations.store.REBUILD_BATCH", batch)
    shops = ShopFactory.create_batch(5)
    users = UserFactory.create_batch(4)
    for n, user in enumerate(users):
        _save(user, *shops[n : n + 3])
    _rate(users[0], shops[4])
    note = BlogFactory(shop=shops[0])
    blog_like(blog_id=note.id, user_id=users[3].id)

    from toolkit.redis.client import get_redis

    client = get_redis()

    def state() -> dict[str, object]:
        found: dict[str, object] = {
            "pop": client.zrange(keys.recs_popularity(), 0, -1, withscores=True)
        }
        for shop in shops:
            found[f"co{shop.id}"] = client.hgetall(keys.recs_counts(shop.id))
            found[f"nb{shop.id}"] = sorted(client.zrange(keys.recs_neighbours(shop.id), 0, -1))
        for user in users:
            found[f"h{user.id}"] = sorted(client.zrange(keys.recs_history(user.id), 0, -1))
            found[f"r{user.id}"] = client.smembers(keys.recs_rated(user.id))
        return found

    live = state()
    assert live[f"r{users[0].id}"] == {str(shops[4].id).encode()}
    client.flushdb()  # Redis lost it all, the likes' sets included
    blog_like(blog_id=note.id, user_id=users[3].id)  # the like again: its set is back
    client.delete(*client.keys("recs:*"))
    call_command("rebuild_recommendations")
    assert state() == live


def test_an_interaction_pairs_only_with_the_last_ones_and_neighbours_are_bounded(
    monkeypatch,
) -> None:
    from toolkit.redis.client import get_redis

    monkeypatch.setattr(store, "NEIGHBOURS", 5)
    client = get_redis()
    for n in range(25):  # one user, 25 shops: the 25th pairs with the last 20 only
        interaction_record(user_id=1, shop_id=100 + n, at_ms=1000 + n)
    assert client.zcard(keys.recs_history(1)) == HISTORY == 20
    assert client.hget(keys.recs_counts(124), "100") is None
    assert client.zcard(keys.recs_neighbours(104)) == 5  # of the 24 it was seen with
    assert sorted(client.hkeys(keys.recs_counts(104))) == sorted(
        client.zrange(keys.recs_neighbours(104), 0, -1)
    )


def test_a_process_reads_a_shops_neighbours_again_after_their_ttl(fake_clock, settings) -> None:
    settings.RECS_NEIGHBOURS_TTL = 30
    for shop_id in (1, 2):
        interaction_record(user_id=7, shop_id=shop_id)
    assert [shop for shop, _ in neighbour_lists([1])[1]] == [2]
    for shop_id in (1, 3):
        interaction_record(user_id=8, shop_id=shop_id)

    assert [shop for shop, _ in neighbour_lists([1])[1]] == [2]  # the copy, 0 s old
    fake_clock.advance(31)
    assert sorted(shop for shop, _ in neighbour_lists([1])[1]) == [2, 3]
