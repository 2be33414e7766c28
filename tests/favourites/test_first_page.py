"""The first page of "my favourites" kept in Redis (decision 424): served on the token's
round trip, never stale after a save or unsave, and the shop cards spliced from cached
JSON exactly as the decoded cards were."""

from __future__ import annotations

from datetime import UTC, datetime

import orjson
import pytest

from favourites import keys, pages, selectors, services
from favourites.models import Favourite
from tests.factories import ShopFactory
from toolkit.api.scroll import scroll_page
from toolkit.redis.client import get_redis

pytestmark = pytest.mark.django_db(transaction=True)  # the page is evicted after commit


def _ids(user_api, query: str = "") -> list[int]:
    answer = user_api.get(f"/api/favourites?kind=shop{query}").json()
    return [item["shop"]["id"] for item in answer["results"]]


def test_a_save_or_unsave_shows_on_the_next_read(user, user_api, redis_client) -> None:
    first, second = ShopFactory(), ShopFactory()
    user_api.put(f"/api/favourites/shop/{first.id}")
    assert _ids(user_api) == [first.id]
    assert redis_client.hget(keys.favourites_first_pages(user.id), "shop") is not None  # kept
    Favourite.objects.filter(user_id=user.id).update(created_at=datetime(2020, 1, 1, tzinfo=UTC))
    assert _ids(user_api) == [first.id]  # the kept page is served: no query (its old time)
    saved_at = user_api.get("/api/favourites?kind=shop").json()["results"][0]["saved_at"]
    assert not saved_at.startswith("2020")

    user_api.put(f"/api/favourites/shop/{second.id}")
    assert _ids(user_api) == [second.id, first.id]
    user_api.delete(f"/api/favourites/shop/{second.id}")
    assert _ids(user_api) == [first.id]
    services.favourite_unsave(user_id=user.id, kind="shop", object_id=first.id)
    assert _ids(user_api) == []


def test_a_page_read_before_a_change_and_kept_after_it_is_never_served(user, user_api) -> None:
    first, second = ShopFactory(), ShopFactory()
    services.favourite_save(user_id=user.id, kind="shop", object_id=first.id)
    pipe = get_redis().pipeline(transaction=False)
    pages.queue_page(pipe, user.id, "shop")
    _, generation = pages.page_from(pipe.execute()[0])  # a reader misses ...
    stale = selectors.favourite_rows(user_id=user.id, kind="shop", last_id=None)  # queries ...
    services.favourite_save(user_id=user.id, kind="shop", object_id=second.id)  # a save ...
    pages.store_page(user.id, "shop", generation, stale)  # ... and the reader keeps its page

    assert _ids(user_api) == [second.id, first.id]


def test_shop_cards_are_spliced_as_the_decoded_cards_were(user, user_api) -> None:
    shops = ShopFactory.create_batch(12)
    for shop in shops:
        services.favourite_save(user_id=user.id, kind="shop", object_id=shop.id)
    for query in ("", "&last_id=999999999"):
        answer = user_api.get(f"/api/favourites?kind=shop{query}")
        rows, next_last_id = selectors.favourite_rows(
            user_id=user.id, kind="shop", last_id=999999999 if query else None
        )
        cards = selectors.favourite_cards(kind="shop", rows=rows, viewer_id=user.id)
        expected = orjson.loads(orjson.dumps(scroll_page(cards, next_last_id)))
        got = answer.json()
        assert got == expected
        assert [list(item) for item in got["results"]] == [
            list(item) for item in expected["results"]
        ]
        assert [list(i["shop"]) for i in got["results"]] == [
            list(i["shop"]) for i in expected["results"]
        ]
    assert len(got["results"]) == 10
    assert got["last_id"] is not None
    assert _ids(user_api, f"&last_id={got['last_id']}") == [shops[1].id, shops[0].id]
