"""Rankings end to end: the beat job's lists per city, type and district, one review per
reviewer, the atomic replacement, the read's parameters and the badge on shop pages."""

from __future__ import annotations

import threading

import orjson
import pytest
from django.test import override_settings

from blogs import services as blogs
from favourites import services as favourites
from rankings import keys, selectors, services, stored
from rankings.tasks import compute_rankings
from shops.models import Shop
from tests.factories import CityFactory, ShopFactory, ShopTypeFactory, UserFactory
from tests.helpers import client_for
from toolkit.redis import keys as redis_keys
from traffic import keys as traffic_keys

pytestmark = pytest.mark.django_db(transaction=True)

FIVE = {"rating_5": 5, "comments": 5}


def _ids(answer) -> list[int]:
    return [entry["shop"]["id"] for entry in answer["results"]]


def test_lists_by_type_and_district_per_city(api, eager_tasks) -> None:
    food = ShopTypeFactory(name="美食")
    best = ShopFactory(type=food, area="静安寺", rating_5=9, comments=9)
    second = ShopFactory(type=food, area="静安寺", **FIVE)
    elsewhere = ShopFactory(type=food, area="人民广场", rating_4=5, comments=5)
    too_few = ShopFactory(type=food, area="静安寺", rating_5=2, comments=2)
    hangzhou = CityFactory(code="hangzhou")
    far = ShopFactory(type=food, area="西湖", city=hangzhou, **FIVE)

    compute_rankings.delay()

    by_type = api.get("/api/rankings", {"type_id": food.id}).json()
    assert _ids(by_type) == [best.id, second.id, elsewhere.id]
    assert [e["rank"] for e in by_type["results"]] == [1, 2, 3]
    assert by_type["week"] == services.current_week()
    assert by_type["results"][0]["shop"]["saved"] is False
    assert "open_now" in by_type["results"][0]["shop"]
    district = api.get("/api/rankings", {"area": "静安寺"}).json()
    assert _ids(district) == [best.id, second.id]  # too_few has 2 reviewers of 3
    assert too_few.id not in _ids(by_type)
    assert district["lists"] == {"type_ids": [food.id], "areas": ["人民广场", "静安寺"]}
    other = api.get("/api/rankings", {"type_id": food.id, "city": "hangzhou"}).json()
    assert _ids(other) == [far.id]
    assert api.get("/api/rankings", {"area": "西湖"}).json()["results"] == []


def test_one_review_per_reviewer(api) -> None:
    shop = ShopFactory(area="静安寺", score=0, comments=0)
    author = UserFactory()
    for i in range(3):  # three reviews, one reviewer
        blogs.blog_create(
            user_id=author.id,
            data={"title": f"第{i}次", "content": "好吃", "shop_id": shop.id, "rating": 5},
        )
    assert Shop.objects.get(pk=shop.id).comments == 1
    services.compute_all(force=True)
    assert api.get("/api/rankings", {"area": "静安寺"}).json()["results"] == []
    for _ in range(2):
        blogs.blog_create(
            user_id=UserFactory().id,
            data={"title": "好", "content": "好吃", "shop_id": shop.id, "rating": 5},
        )
    services.compute_all(force=True)
    assert _ids(api.get("/api/rankings", {"area": "静安寺"}).json()) == [shop.id]


def test_recent_favourites_and_visitors_move_the_rank(api, redis_client) -> None:
    first, second = ShopFactory(**FIVE), ShopFactory(**FIVE)
    services.compute_all(force=True)
    assert _ids(api.get("/api/rankings", {"area": "Jing'an"}).json()) == [first.id, second.id]
    for _ in range(5):
        favourites.favourite_save(user_id=UserFactory().id, kind="shop", object_id=second.id)
    services.compute_all(force=True)
    assert _ids(api.get("/api/rankings", {"area": "Jing'an"}).json()) == [second.id, first.id]
    from traffic import visits

    day = visits.local_day()
    redis_client.pfadd(traffic_keys.visits_uv(visits.shop_subject(first.id), day), *range(500))
    services.compute_all(force=True)
    assert _ids(api.get("/api/rankings", {"area": "Jing'an"}).json()) == [first.id, second.id]


def test_the_beat_job_computes_once_a_week(api) -> None:
    shop = ShopFactory(**FIVE)
    assert services.compute_all() != []
    assert services.compute_all() == []  # this week's lists are there
    assert _ids(api.get("/api/rankings", {"area": "Jing'an"}).json()) == [shop.id]


@override_settings(RANKING_TOP=3)
def test_a_reader_never_sees_a_half_list(api, redis_client) -> None:
    shops = [ShopFactory(**FIVE) for _ in range(6)]
    services.compute_all(force=True)
    stop = threading.Event()
    seen: list[tuple[int, bool]] = []  # (the list's length, of the same run as `meta`?)
    live = keys.rankings(shops[0].city_id)

    def read() -> None:
        while not stop.is_set():
            raw, meta = redis_client.hmget(live, ["area:Jing'an", "meta"])
            answer = stored.as_answer(raw)
            same = orjson.loads(meta)["computed_at"] == answer["computed_at"]
            seen.append((len(answer["results"]), same))

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for _ in range(10):
            services.compute_all(force=True)
    finally:
        stop.set()
        reader.join(timeout=10)
    assert seen
    assert set(seen) == {(3, True)}
    assert redis_client.exists(redis_keys.rebuilding(keys.rankings(shops[0].city_id))) == 0


def test_before_the_first_computation_the_list_is_empty(api) -> None:
    answer = api.get("/api/rankings", {"type_id": 1}).json()
    assert answer == {
        "week": None,
        "computed_at": None,
        "results": [],
        "lists": {"type_ids": [], "areas": []},
    }


@pytest.mark.parametrize(
    ("query", "status", "code"),
    [
        ({}, 400, "one_list_required"),
        ({"type_id": 1, "area": "静安寺"}, 400, "one_list_required"),
        ({"type_id": "x"}, 400, "invalid"),
        ({"area": "静安寺", "city": "atlantis"}, 404, "city_not_found"),
    ],
)
def test_parameters(api, query, status, code) -> None:
    response = api.get("/api/rankings", query, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == status
    assert response.json()["code"] == code


def test_the_badge_on_the_shop_page_and_cards(api, user) -> None:
    food = ShopTypeFactory(name="美食")
    top = ShopFactory(type=food, area="静安寺", rating_5=9, comments=9)
    runner_up = ShopFactory(type=food, area="静安寺", **FIVE)
    unranked = ShopFactory(type=food, area="静安寺", comments=1)
    api.get(f"/api/shops/{top.id}")  # cached before the computation: evicted by it
    services.compute_all(force=True)

    page = client_for(user).get(f"/api/shops/{runner_up.id}").json()
    assert page["rank"] == {"rank": 2, "list": "静安寺", "type_id": None, "area": "静安寺"}
    assert api.get(f"/api/shops/{top.id}").json()["rank"]["rank"] == 1
    assert api.get(f"/api/shops/{unranked.id}").json()["rank"] is None
    cards = api.get("/api/shops", {"type_id": food.id}).json()["results"]
    assert [c["rank"] and c["rank"]["rank"] for c in cards] == [1, 2, None]

    Shop.objects.filter(pk=runner_up.id).update(rating_5=0, comments=1)  # off the lists
    services.compute_all(force=True)
    assert api.get(f"/api/shops/{runner_up.id}").json()["rank"] is None


def test_saved_markers_follow_the_reader_and_the_list(api, user) -> None:
    best = ShopFactory(area="静安寺", rating_5=9, comments=9)
    second = ShopFactory(area="静安寺", **FIVE)
    services.compute_all(force=True)
    reader = client_for(user)

    def marks() -> list[tuple[int, bool]]:
        answer = reader.get("/api/rankings", {"area": "静安寺"}).json()
        return [(e["shop"]["id"], e["shop"]["saved"]) for e in answer["results"]]

    favourites.favourite_save(user_id=user.id, kind="shop", object_id=second.id)
    assert marks() == [(best.id, False), (second.id, True)]  # ids unknown: one more trip
    favourites.favourite_save(user_id=user.id, kind="shop", object_id=best.id)
    assert marks() == [(best.id, True), (second.id, True)]  # queued with the token's
    Shop.objects.filter(pk=second.id).update(rating_5=20, comments=20)
    services.compute_all(force=True)  # the order changes: the guessed ids are wrong
    favourites.favourite_unsave(user_id=user.id, kind="shop", object_id=best.id)
    assert marks() == [(second.id, True), (best.id, False)]
    held = selectors._ids[(best.city_id, "area:静安寺")]
    assert held[1] == [second.id, best.id]
    assert marks() == [(second.id, True), (best.id, False)]
    anonymous = api.get("/api/rankings", {"area": "静安寺"}).json()["results"]
    assert [e["shop"]["saved"] for e in anonymous] == [False, False]


def test_a_list_stored_in_the_format_before_is_still_read(user, redis_client) -> None:
    food = ShopTypeFactory(name="美食")
    shops = [ShopFactory(type=food, area="静安寺", rating_5=9 - i, comments=9) for i in range(3)]
    favourites.favourite_save(user_id=user.id, kind="shop", object_id=shops[1].id)
    services.compute_all(force=True)
    reader = client_for(user)
    spliced = reader.get("/api/rankings", {"type_id": food.id}).json()
    live = keys.rankings(shops[0].city_id)
    old = orjson.dumps(stored.as_answer(redis_client.hget(live, f"type:{food.id}")))
    assert old.startswith(b"{")
    redis_client.hset(live, f"type:{food.id}", old)  # as the computation before wrote it

    decoded = reader.get("/api/rankings", {"type_id": food.id}).json()

    assert decoded == spliced
    assert [e["shop"]["saved"] for e in spliced["results"]] == [
        e["shop"]["id"] == shops[1].id for e in spliced["results"]
    ]
    assert len(spliced["results"]) == 3
    assert list(spliced) == ["week", "computed_at", "results", "lists"]
    assert [list(e) for e in spliced["results"]] == [list(e) for e in decoded["results"]]
    assert [list(e["shop"]) for e in spliced["results"]] == [
        list(e["shop"]) for e in decoded["results"]
    ]
    assert list(spliced["results"][0]["shop"])[-2:] == ["open_now", "saved"]
