"""Reviews (docs/product/reviews.md#reviews): a note about a shop may rate it; the
shop's review count, rating histogram and score follow every create, edit, move and
delete, and show on the next load of the shop (its cached document evicted); a shop's
reviews are listed newest or most liked first."""

from __future__ import annotations

import pytest

from blogs.models import Blog, ShopRating
from shops.models import Shop
from shops.services import score_of
from tests.factories import BlogFactory, ShopFactory, UserFactory
from tests.helpers import client_for

pytestmark = pytest.mark.django_db(transaction=True)


def _note(api, shop_id, rating=None, title="探店", **extra):
    body = {"title": title, "content": "好吃", "shop_id": shop_id, "rating": rating, **extra}
    response = api.post("/api/blogs", body, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def _shop(api, shop_id):
    response = api.get(f"/api/shops/{shop_id}")
    assert response.status_code == 200
    return response.json()


def test_a_rated_note_moves_the_shops_score_on_the_next_load(api, user_api) -> None:
    shop = ShopFactory()
    assert _shop(api, shop.id)["ratings"] == [0, 0, 0, 0, 0]  # now cached

    note = _note(user_api, shop.id, rating=4)

    assert note["rating"] == 4
    seen = _shop(api, shop.id)
    assert (seen["score"], seen["comments"], seen["ratings"]) == (40, 1, [0, 0, 0, 1, 0])


def test_one_rating_per_user_and_shop_counts_the_newest(api, user, user_api) -> None:
    shop = ShopFactory()
    _note(user_api, shop.id, rating=2)
    _note(user_api, shop.id, rating=5)
    _note(client_for(UserFactory()), shop.id, rating=4)

    seen = _shop(api, shop.id)

    assert seen["comments"] == 2  # one review per reviewer (decision 286)
    assert seen["ratings"] == [0, 0, 0, 1, 1]  # but one rating per user: the newest
    assert seen["score"] == 45
    assert ShopRating.objects.get(user=user, shop=shop).stars == 5


def test_deleting_the_newest_rated_note_brings_back_the_one_before(api, user_api) -> None:
    shop = ShopFactory()
    _note(user_api, shop.id, rating=2)
    newest = _note(user_api, shop.id, rating=5)
    _shop(api, shop.id)

    assert user_api.delete(f"/api/blogs/{newest['id']}").status_code == 204

    seen = _shop(api, shop.id)
    assert (seen["score"], seen["comments"], seen["ratings"]) == (20, 1, [0, 1, 0, 0, 0])


def test_editing_or_clearing_a_rating_and_moving_a_note(api, user_api) -> None:
    first, second = ShopFactory(), ShopFactory()
    note = _note(user_api, first.id, rating=3)

    assert (
        user_api.patch(f"/api/blogs/{note['id']}", {"rating": 1}, format="json").json()["rating"]
        == 1
    )
    assert _shop(api, first.id)["ratings"] == [1, 0, 0, 0, 0]

    moved = user_api.patch(f"/api/blogs/{note['id']}", {"shop_id": second.id}, format="json")
    assert moved.status_code == 200
    assert (_shop(api, first.id)["comments"], _shop(api, first.id)["score"]) == (0, 0)
    assert (_shop(api, second.id)["comments"], _shop(api, second.id)["score"]) == (1, 10)

    cleared = user_api.patch(f"/api/blogs/{note['id']}", {"rating": None}, format="json")
    assert cleared.json()["rating"] is None
    seen = _shop(api, second.id)
    assert (seen["comments"], seen["score"], seen["ratings"]) == (1, 0, [0, 0, 0, 0, 0])


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"rating": 6}, "rating"),
        ({"rating": 0}, "rating"),
        ({"rating": "5"}, "rating"),  # strict input: a string is not a number
        ({"rating": 4.5}, "rating"),
    ],
)
def test_bad_ratings_are_refused_and_publish_nothing(user_api, body, field) -> None:
    shop = ShopFactory()
    response = user_api.post(
        "/api/blogs", {"title": "t", "content": "c", "shop_id": shop.id, **body}, format="json"
    )

    assert response.status_code == 400
    assert field in response.json()["errors"]
    assert not Blog.objects.exists()


def test_a_rating_needs_a_shop(user_api) -> None:
    response = user_api.post(
        "/api/blogs", {"title": "t", "content": "c", "rating": 5}, format="json"
    )
    assert (response.status_code, response.json()["code"]) == (400, "rating_without_shop")
    assert not Blog.objects.exists()

    note = _note(user_api, ShopFactory().id, rating=5)
    unmoored = user_api.patch(f"/api/blogs/{note['id']}", {"shop_id": None}, format="json")
    assert (unmoored.status_code, unmoored.json()["code"]) == (400, "rating_without_shop")
    assert Blog.objects.get(pk=note["id"]).shop_id is not None  # nothing changed


def test_a_note_that_goes_another_way_is_recounted(api, user, eager_tasks) -> None:
    # An account deleted takes its notes with it in a cascade, past the services.
    shop = ShopFactory()
    _note(client_for(user), shop.id, rating=1)
    _note(client_for(UserFactory()), shop.id, rating=5)
    assert _shop(api, shop.id)["score"] == 30

    user.delete()

    seen = _shop(api, shop.id)
    assert (seen["score"], seen["comments"], seen["ratings"]) == (50, 1, [0, 0, 0, 0, 1])


def test_a_shops_reviews_newest_or_most_liked_first(api, user_api) -> None:
    shop = ShopFactory()
    older = _note(user_api, shop.id, rating=3, title="older")
    newer = _note(client_for(UserFactory()), shop.id, title="newer")
    BlogFactory()  # about another shop (or none): not a review of this one
    client_for(UserFactory()).post(f"/api/blogs/{older['id']}/like")

    newest_first = api.get(f"/api/shops/{shop.id}/reviews").json()
    most_liked = api.get(f"/api/shops/{shop.id}/reviews?sort=liked").json()

    assert newest_first["count"] == 2
    assert [b["id"] for b in newest_first["results"]] == [newer["id"], older["id"]]
    assert [b["id"] for b in most_liked["results"]] == [older["id"], newer["id"]]
    assert most_liked["results"][0]["liked"] == 1
    assert most_liked["results"][0]["rating"] == 3
    assert most_liked["results"][0]["user"]["id"]


def test_a_new_review_shows_in_the_cached_list_at_once(api, user_api) -> None:
    shop = ShopFactory()
    first = _note(user_api, shop.id)
    assert [b["id"] for b in api.get(f"/api/shops/{shop.id}/reviews").json()["results"]] == [
        first["id"]
    ]  # cached now

    second = _note(client_for(UserFactory()), shop.id)
    listed = api.get(f"/api/shops/{shop.id}/reviews").json()
    assert [b["id"] for b in listed["results"]] == [second["id"], first["id"]]

    user_api.delete(f"/api/blogs/{first['id']}")
    listed = api.get(f"/api/shops/{shop.id}/reviews").json()
    assert (listed["count"], [b["id"] for b in listed["results"]]) == (1, [second["id"]])


def test_reviews_pages_past_the_cached_ones_and_past_the_end(api, user_api) -> None:
    shop = ShopFactory()
    ids = [_note(client_for(UserFactory()), shop.id)["id"] for _ in range(12)]

    pages = [
        api.get(f"/api/shops/{shop.id}/reviews?page={n}&page_size=5").json() for n in (1, 2, 3)
    ]
    sorted_by_likes = api.get(f"/api/shops/{shop.id}/reviews?sort=liked&page=2&page_size=5")

    assert [b["id"] for page in pages for b in page["results"]] == ids[::-1]
    assert pages[2]["next"] is None
    assert [b["id"] for b in sorted_by_likes.json()["results"]] == ids[::-1][5:10]
    assert api.get(f"/api/shops/{shop.id}/reviews?page=9").json()["results"] == []


def test_reviews_of_no_such_shop_and_bad_sorts(api) -> None:
    assert api.get("/api/shops/999999/reviews").status_code == 404
    shop = ShopFactory()
    response = api.get(f"/api/shops/{shop.id}/reviews?sort=best")
    assert response.status_code == 400
    assert "sort" in response.json()["errors"]


@pytest.mark.parametrize(
    ("histogram", "score"),
    [
        ({1: 0, 2: 0, 3: 0, 4: 0, 5: 0}, 0),
        ({5: 1}, 50),
        ({4: 3, 5: 1}, 43),  # 4.25 rounds half up
        ({1: 1, 2: 1}, 15),  # 1.5
        ({3: 2, 4: 1}, 33),  # 3.333...
        ({4: 1, 5: 2}, 47),  # 4.666...
    ],
)
def test_the_score_is_the_mean_x10_rounded_half_up(histogram, score) -> None:
    assert score_of(histogram) == score


def _counted(shop: Shop) -> tuple[int, int, list[int]]:
    shop.refresh_from_db()
    return shop.score, shop.comments, [getattr(shop, f"rating_{n}") for n in range(1, 6)]


def test_score_histogram_and_count_stay_exact_under_concurrent_reviews() -> None:
    """24 users review one shop at once, then half of them rate again while the others
    delete their notes: the statistics equal what the rows say, no request fails."""
    from tests.helpers import run_concurrently

    shop = ShopFactory()
    apis = [client_for(UserFactory()) for _ in range(24)]

    def review(i: int) -> tuple[int, int]:
        response = apis[i].post(
            "/api/blogs",
            {"title": f"note {i}", "content": "c", "shop_id": shop.id, "rating": i % 5 + 1},
            format="json",
        )
        return response.status_code, response.json()["id"]

    created = run_concurrently(review, workers=24)
    assert [status for status, _ in created] == [201] * 24
    assert _counted(shop) == (
        score_of({n: 24 // 5 + (n <= 24 % 5) for n in range(1, 6)}),
        24,
        [5, 5, 5, 5, 4],
    )

    def change(i: int) -> int:
        note_id = created[i][1]
        if i % 2:
            return apis[i].delete(f"/api/blogs/{note_id}").status_code
        path, body = "/api/blogs", {"title": "again", "content": "c", "shop_id": shop.id}
        return apis[i].post(path, {**body, "rating": 5}, format="json").status_code

    statuses = run_concurrently(change, workers=24)

    assert sorted(statuses) == [201] * 12 + [204] * 12
    ratings = list(ShopRating.objects.filter(shop=shop).values_list("stars", flat=True))
    assert ratings == [5] * 12  # the 12 who rated again; the others deleted their only note
    assert _counted(shop) == (50, 12, [0, 0, 0, 0, 12])  # 12 reviewers, 24 notes


def test_one_user_rating_twice_at_once_counts_once(user) -> None:
    from tests.helpers import run_concurrently

    shop = ShopFactory()
    api = client_for(user)

    def review(i: int) -> int:
        body = {"title": f"n{i}", "content": "c", "shop_id": shop.id, "rating": 1 + i % 2 * 4}
        return api.post("/api/blogs", body, format="json").status_code

    assert run_concurrently(review, workers=8) == [201] * 8

    newest = Blog.objects.filter(shop=shop).order_by("-created_at", "-id").first()
    assert newest is not None
    assert newest.rating is not None
    assert ShopRating.objects.get(shop=shop).stars == newest.rating
    score, comments, histogram = _counted(shop)
    assert (comments, sum(histogram), score) == (1, 1, newest.rating * 10)  # one reviewer


def test_an_admin_moving_a_note_recounts_both_shops(api, user, user_api, client) -> None:
    first, second = ShopFactory(), ShopFactory()
    note = _note(user_api, first.id, rating=2)
    _shop(api, first.id), _shop(api, second.id)
    client.force_login(UserFactory(is_staff=True, is_superuser=True))

    response = client.post(
        f"/admin/blogs/blog/{note['id']}/change/",
        {"user": user.id, "shop": second.id, "title": "t", "images": "[]", "content": "c"},
    )

    assert response.status_code == 302
    assert (_shop(api, first.id)["comments"], _shop(api, first.id)["score"]) == (0, 0)
    assert (_shop(api, second.id)["comments"], _shop(api, second.id)["ratings"]) == (
        1,
        [0, 1, 0, 0, 0],
    )


def test_recount_shops_repairs_whatever_drifted(api, user_api) -> None:
    from django.core.management import call_command

    from tests.factories import NormalVoucherFactory

    shop = ShopFactory(score=45, comments=99, sold=7)  # figures no row supports
    note = _note(user_api, shop.id, rating=3)
    Shop.objects.filter(pk=shop.id).update(score=45, comments=99, rating_5=4, sold=7)
    ShopRating.objects.filter(blog_id=note["id"]).update(stars=1)
    NormalVoucherFactory(shop=shop)

    call_command("recount_shops", verbosity=0)

    seen = _shop(api, shop.id)
    assert (seen["score"], seen["comments"], seen["ratings"], seen["sold"]) == (
        30,
        1,
        [0, 0, 1, 0, 0],
        0,
    )


def test_hiding_a_review_takes_it_out_of_the_score_and_list_and_restoring_brings_it_back(
    api, user_api
) -> None:
    from blogs import services

    shop = ShopFactory()
    kept = _note(client_for(UserFactory()), shop.id, rating=5)
    reported = _note(user_api, shop.id, rating=1)
    assert _shop(api, shop.id)["score"] == 30
    assert len(api.get(f"/api/shops/{shop.id}/reviews").json()["results"]) == 2  # cached

    services.blog_hide(blog_id=reported["id"])

    seen = _shop(api, shop.id)
    assert (seen["score"], seen["comments"], seen["ratings"]) == (50, 1, [0, 0, 0, 0, 1])
    listed = api.get(f"/api/shops/{shop.id}/reviews").json()
    assert (listed["count"], [b["id"] for b in listed["results"]]) == (1, [kept["id"]])

    services.blog_restore(blog_id=reported["id"])

    seen = _shop(api, shop.id)
    assert (seen["score"], seen["comments"], seen["ratings"]) == (30, 2, [1, 0, 0, 0, 1])


def test_moving_a_rated_note_to_a_shop_with_a_lower_id(api, user_api) -> None:
    # Shops are recounted in id order: the lower one first, while the note's rating row
    # still names the other. It answered 500 (the rating row is one per note).
    lower, higher = ShopFactory(), ShopFactory()
    note = _note(user_api, higher.id, rating=4)

    moved = user_api.patch(f"/api/blogs/{note['id']}", {"shop_id": lower.id}, format="json")

    assert moved.status_code == 200
    assert (_shop(api, lower.id)["ratings"], _shop(api, higher.id)["ratings"]) == (
        [0, 0, 0, 1, 0],
        [0, 0, 0, 0, 0],
    )


def test_an_admin_giving_a_note_to_another_author_moves_the_rating(api, user, client) -> None:
    shop = ShopFactory()
    note = _note(client_for(user), shop.id, rating=2)
    other = UserFactory()
    client.force_login(UserFactory(is_staff=True, is_superuser=True))

    response = client.post(
        f"/admin/blogs/blog/{note['id']}/change/",
        {"user": other.id, "shop": shop.id, "title": "t", "images": "[]", "content": "c"},
    )

    assert response.status_code == 302
    assert list(ShopRating.objects.values_list("user_id", "stars")) == [(other.id, 2)]
    assert _shop(api, shop.id)["ratings"] == [0, 1, 0, 0, 0]


def test_an_admin_bulk_delete_recounts_through_the_service(api, user_api, client) -> None:
    shop = ShopFactory()
    notes = [_note(user_api, shop.id, rating=3), _note(client_for(UserFactory()), shop.id)]
    client.force_login(UserFactory(is_staff=True, is_superuser=True))

    client.post(
        "/admin/blogs/blog/",
        {"action": "delete_selected", "_selected_action": [n["id"] for n in notes], "post": "yes"},
    )

    assert not Blog.objects.exists()
    seen = _shop(api, shop.id)
    assert (seen["score"], seen["comments"], seen["ratings"]) == (0, 0, [0, 0, 0, 0, 0])


def test_a_deleted_shops_reviews_are_gone_and_its_notes_still_editable(api, user_api) -> None:
    shop = ShopFactory()
    note = _note(user_api, shop.id, rating=5)
    assert api.get(f"/api/shops/{shop.id}/reviews").status_code == 200  # cached

    Shop.objects.filter(pk=shop.id).delete()

    assert api.get(f"/api/shops/{shop.id}/reviews").status_code == 404
    edited = user_api.patch(f"/api/blogs/{note['id']}", {"title": "still mine"}, format="json")
    assert (edited.status_code, edited.json()["title"]) == (200, "still mine")
