"""A shop's reviews filtered to those with photos or with a number of stars, with any
sort, paged as every list is (decision 378)."""

from __future__ import annotations

import pytest

from blogs import helpful
from tests.factories import BlogFactory, ShopFactory, UserFactory
from tests.helpers import all_pages

pytestmark = pytest.mark.django_db(transaction=True)

PHOTO = "/media/demo/a.jpg"


def _ids(api, url: str) -> list[int]:
    response = api.get(url)
    assert response.status_code == 200, response.content
    return [review["id"] for review in response.json()["results"]]


def test_with_photos_and_stars_filter_alone_and_together(api) -> None:
    shop = ShopFactory()
    plain5 = BlogFactory(shop=shop, rating=5)
    photo5 = BlogFactory(shop=shop, rating=5, images=[PHOTO])
    photo3 = BlogFactory(shop=shop, rating=3, images=[PHOTO, PHOTO])
    unrated_photo = BlogFactory(shop=shop, images=[PHOTO])
    BlogFactory(shop=ShopFactory(), rating=5, images=[PHOTO])  # another shop's
    base = f"/api/shops/{shop.id}/reviews"

    with_photos = api.get(f"{base}?with_photos=true").json()
    assert with_photos["count"] == 3
    assert [r["id"] for r in with_photos["results"]] == [unrated_photo.id, photo3.id, photo5.id]
    assert all(r["images"] for r in with_photos["results"])
    assert _ids(api, f"{base}?stars=5") == [photo5.id, plain5.id]
    assert _ids(api, f"{base}?stars=5&with_photos=true") == [photo5.id]
    assert _ids(api, f"{base}?stars=4") == []
    assert api.get(f"{base}?with_photos=false").json()["count"] == 4  # no filter


def test_filters_combine_with_every_sort(api) -> None:
    shop = ShopFactory()
    older = BlogFactory(shop=shop, rating=4, images=[PHOTO])
    newer = BlogFactory(shop=shop, rating=4, images=[PHOTO])
    BlogFactory(shop=shop, rating=4)  # no photo
    voter = UserFactory()
    helpful.helpful_vote(blog_id=older.id, user_id=voter.id)
    base = f"/api/shops/{shop.id}/reviews?with_photos=true&stars=4"

    assert _ids(api, base) == [newer.id, older.id]
    assert _ids(api, f"{base}&sort=new") == [newer.id, older.id]
    assert _ids(api, f"{base}&sort=helpful") == [older.id, newer.id]
    assert _ids(api, f"{base}&sort=liked") == [newer.id, older.id]  # ties: newest first


def test_a_filtered_list_pages_as_the_house_does(api) -> None:
    shop = ShopFactory()
    with_photos = [BlogFactory(shop=shop, images=[PHOTO]).id for _ in range(7)]
    BlogFactory.create_batch(5, shop=shop)
    url = f"/api/shops/{shop.id}/reviews?with_photos=true&page_size=3"

    first = api.get(url).json()
    assert (first["count"], len(first["results"])) == (7, 3)
    assert "with_photos=true" in first["next"]  # the filter rides along
    assert [r["id"] for r in all_pages(api, url)] == with_photos[::-1]
    assert api.get(f"{url}&page=9").json()["results"] == []


@pytest.mark.parametrize(
    "query",
    ["stars=0", "stars=6", "stars=x", "stars=4.5", "with_photos=1", "with_photos=yes", "sort=best"],
)
def test_bad_filters_are_a_400_naming_the_parameter(api, query) -> None:
    shop = ShopFactory()
    response = api.get(f"/api/shops/{shop.id}/reviews?{query}")
    assert response.status_code == 400
    assert list(response.json()["errors"]) == [query.split("=")[0]]


def test_filters_of_no_such_shop_are_a_404(api) -> None:
    assert api.get("/api/shops/999999/reviews?with_photos=true").status_code == 404
    assert api.get("/api/shops/999999/reviews?stars=3").status_code == 404
