"""Sub-scores (taste, environment, service) on a review and their averages on its shop,
kept exact as the score is (decision 376): counted again from the ratings that count, one
per user, under the shop's row lock, after every create, edit, move, delete, hide and
restore, and repaired by `recount_shops`."""

from __future__ import annotations

import pytest

from blogs.models import Blog, ShopRating
from shops.models import Shop
from shops.scores import mean_x10
from tests.factories import ShopFactory, UserFactory
from tests.helpers import client_for, run_concurrently

pytestmark = pytest.mark.django_db(transaction=True)

NONE = {"taste": None, "environment": None, "service": None}
ZERO = {"taste": 0, "environment": 0, "service": 0}


def _review(api, shop_id, rating=4, **scores):
    body = {"title": "探店", "content": "好吃", "shop_id": shop_id, "rating": rating, **scores}
    response = api.post("/api/blogs", body, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def _sub_scores(api, shop_id) -> tuple[dict, dict]:
    shop = api.get(f"/api/shops/{shop_id}").json()
    return shop["sub_scores"], shop["sub_score_counts"]


def test_a_review_carries_its_sub_scores_and_the_shop_averages_them(api, user_api) -> None:
    shop = ShopFactory()
    assert _sub_scores(api, shop.id) == (NONE, ZERO)  # now cached

    mine = _review(user_api, shop.id, rating=4, taste=5, environment=3, service=4)
    _review(client_for(UserFactory()), shop.id, rating=5, taste=4)  # taste only
    _review(client_for(UserFactory()), shop.id, rating=3)  # none at all

    assert (mine["taste"], mine["environment"], mine["service"]) == (5, 3, 4)
    listed = api.get(f"/api/shops/{shop.id}/reviews").json()["results"]
    assert [(r["taste"], r["environment"], r["service"]) for r in listed] == [
        (None, None, None),
        (4, None, None),
        (5, 3, 4),
    ]
    assert _sub_scores(api, shop.id) == (
        {"taste": 45, "environment": 30, "service": 40},  # (5 + 4) / 2 = 4.5
        {"taste": 2, "environment": 1, "service": 1},
    )
    assert api.get(f"/api/blogs/{mine['id']}").json()["taste"] == 5


def test_a_users_newest_review_counts_and_deleting_it_brings_back_the_one_before(
    api, user_api
) -> None:
    shop = ShopFactory()
    _review(user_api, shop.id, taste=2, service=2)
    newest = _review(user_api, shop.id, taste=5, environment=5)

    assert _sub_scores(api, shop.id) == (
        {"taste": 50, "environment": 50, "service": None},
        {"taste": 1, "environment": 1, "service": 0},
    )
    assert user_api.delete(f"/api/blogs/{newest['id']}").status_code == 204
    assert _sub_scores(api, shop.id) == (
        {"taste": 20, "environment": None, "service": 20},
        {"taste": 1, "environment": 0, "service": 1},
    )


def test_editing_clearing_and_moving_a_reviews_sub_scores(api, user_api) -> None:
    first, second = ShopFactory(), ShopFactory()
    review = _review(user_api, first.id, taste=3, environment=4)
    url = f"/api/blogs/{review['id']}"

    edited = user_api.patch(url, {"taste": 1, "service": 5}, format="json").json()
    assert (edited["taste"], edited["environment"], edited["service"]) == (1, 4, 5)
    assert _sub_scores(api, first.id)[0] == {"taste": 10, "environment": 40, "service": 50}

    user_api.patch(url, {"environment": None}, format="json")
    assert _sub_scores(api, first.id) == (
        {"taste": 10, "environment": None, "service": 50},
        {"taste": 1, "environment": 0, "service": 1},
    )

    assert user_api.patch(url, {"shop_id": second.id}, format="json").status_code == 200
    assert _sub_scores(api, first.id) == (NONE, ZERO)
    assert _sub_scores(api, second.id)[0] == {"taste": 10, "environment": None, "service": 50}

    cleared = {"rating": None, "taste": None, "service": None}
    assert user_api.patch(url, cleared, format="json").status_code == 200
    assert _sub_scores(api, second.id) == (NONE, ZERO)


@pytest.mark.parametrize("value", [0, 6, "4", 4.5, True])
@pytest.mark.parametrize("name", ["taste", "environment", "service"])
def test_bad_sub_scores_are_refused_and_change_nothing(api, user_api, name, value) -> None:
    shop = ShopFactory()
    body = {"title": "t", "content": "c", "shop_id": shop.id, "rating": 4, name: value}

    created = user_api.post("/api/blogs", body, format="json")

    assert created.status_code == 400
    assert list(created.json()["errors"]) == [name]
    assert not Blog.objects.exists()

    review = _review(user_api, shop.id, **{name: 3})
    edited = user_api.patch(f"/api/blogs/{review['id']}", {name: value}, format="json")
    assert edited.status_code == 400
    assert list(edited.json()["errors"]) == [name]
    assert getattr(Blog.objects.get(pk=review["id"]), name) == 3
    assert _sub_scores(api, shop.id)[0][name] == 30


def test_sub_scores_need_a_rating(api, user_api) -> None:
    shop = ShopFactory()
    unrated = {"title": "t", "content": "c", "shop_id": shop.id, "taste": 5}

    response = user_api.post("/api/blogs", unrated, format="json")

    assert (response.status_code, response.json()["code"]) == (400, "sub_score_without_rating")
    assert not Blog.objects.exists()
    review = _review(user_api, shop.id, rating=4, service=2)
    url = f"/api/blogs/{review['id']}"
    dropped = user_api.patch(url, {"rating": None}, format="json")  # service would dangle
    assert (dropped.status_code, dropped.json()["code"]) == (400, "sub_score_without_rating")
    assert Blog.objects.get(pk=review["id"]).rating == 4  # nothing changed
    assert _sub_scores(api, shop.id)[0]["service"] == 20


def test_hiding_a_review_takes_its_sub_scores_out_and_restoring_brings_them_back(api) -> None:
    from blogs import services

    shop = ShopFactory()
    _review(client_for(UserFactory()), shop.id, taste=5)
    hidden = _review(client_for(UserFactory()), shop.id, taste=2)
    assert _sub_scores(api, shop.id)[0]["taste"] == 35

    services.blog_hide(blog_id=hidden["id"])
    assert _sub_scores(api, shop.id) == ({**NONE, "taste": 50}, {**ZERO, "taste": 1})

    services.blog_restore(blog_id=hidden["id"])
    assert _sub_scores(api, shop.id) == ({**NONE, "taste": 35}, {**ZERO, "taste": 2})


def test_recount_shops_repairs_drifted_sub_scores(api, user_api) -> None:
    from django.core.management import call_command

    shop = ShopFactory()
    review = _review(user_api, shop.id, taste=4, environment=2)
    Shop.objects.filter(pk=shop.id).update(taste_sum=99, taste_count=7, service_count=3)
    ShopRating.objects.filter(blog_id=review["id"]).update(environment=5)  # no note says so

    call_command("recount_shops", verbosity=0)

    assert _sub_scores(api, shop.id) == (
        {"taste": 40, "environment": 20, "service": None},
        {"taste": 1, "environment": 1, "service": 0},
    )


def test_sub_score_averages_stay_exact_under_concurrent_reviews() -> None:
    """24 users review one shop at once with sub-scores, then half of them review it again
    while the others delete theirs: the shop's figures are what the rows say."""
    shop = ShopFactory()
    apis = [client_for(UserFactory()) for _ in range(24)]

    def review(i: int) -> int:
        scores = {"taste": i % 5 + 1, "service": 5 - i % 5} if i % 3 else {"taste": 1}
        body = {"title": f"n{i}", "content": "c", "shop_id": shop.id, "rating": 3, **scores}
        response = apis[i].post("/api/blogs", body, format="json")
        assert response.status_code == 201
        return response.json()["id"]

    ids = run_concurrently(review, workers=24)

    def change(i: int) -> int:
        if i % 2:
            return apis[i].delete(f"/api/blogs/{ids[i]}").status_code
        body = {"title": "again", "content": "c", "shop_id": shop.id, "rating": 4}
        return apis[i].post("/api/blogs", {**body, "environment": 5}, format="json").status_code

    assert sorted(run_concurrently(change, workers=24)) == [201] * 12 + [204] * 12

    shop.refresh_from_db()
    rows = list(ShopRating.objects.filter(shop=shop).values_list("taste", "environment"))
    assert rows == [(None, 5)] * 12  # the newest review of each of the 12 who wrote again
    assert (shop.taste_sum, shop.taste_count, shop.service_count) == (0, 0, 0)
    assert (shop.environment_sum, shop.environment_count) == (60, 12)


@pytest.mark.parametrize(
    ("total", "count", "mean"),
    [(0, 0, None), (5, 1, 50), (17, 4, 43), (3, 2, 15), (10, 3, 33), (14, 3, 47)],
)
def test_averages_are_x10_rounded_half_up_as_the_score(total, count, mean) -> None:
    assert mean_x10(total, count) == mean
