"""Shops near a shop: the other shops of its type around it (GEOSEARCH FROMMEMBER),
nearest first, paged, each with its distance from the shop."""

from __future__ import annotations

import random

import pytest

from dianping.redis import keys
from shops import services
from tests.factories import ShopFactory, ShopTypeFactory
from tests.helpers import all_pages
from tests.shops.test_shop_list import CENTRE, haversine


@pytest.mark.django_db
def test_the_shop_s_neighbours_of_its_type_nearest_first(api) -> None:
    food, other = ShopTypeFactory(), ShopTypeFactory()
    rng = random.Random(11)
    centre = ShopFactory(type=food, x=CENTRE[0], y=CENTRE[1])
    shops = [
        ShopFactory(type=food, x=CENTRE[0] + rng.uniform(-0.03, 0.03), y=CENTRE[1] + dy)
        for dy in (rng.uniform(-0.03, 0.03) for _ in range(40))
    ]
    shops += [ShopFactory(type=food, x=121.476, y=31.232) for _ in range(3)]  # one spot: ties
    ShopFactory(type=other, x=CENTRE[0], y=CENTRE[1])  # another type, at the same place
    services.shop_geo_rebuild()

    results = all_pages(api, f"/api/shops/{centre.id}/nearby?radius=2500")

    expected = sorted(
        (haversine(*CENTRE, s.x, s.y), s.id) for s in shops if haversine(*CENTRE, s.x, s.y) <= 2500
    )
    assert 10 < len(expected) < len(shops)  # some are out of range
    assert [r["id"] for r in results] == [shop_id for _, shop_id in expected]  # not itself
    for result, (distance, _) in zip(results, expected, strict=True):
        assert result["distance"] == pytest.approx(distance, abs=1.0)


@pytest.mark.django_db
def test_the_radius_defaults_to_a_kilometre(api) -> None:
    food = ShopTypeFactory()
    centre = ShopFactory(type=food, x=CENTRE[0], y=CENTRE[1])
    near = ShopFactory(type=food, x=CENTRE[0] + 0.005, y=CENTRE[1])  # about 480 m east
    ShopFactory(type=food, x=CENTRE[0] + 0.02, y=CENTRE[1])  # about 1.9 km east
    services.shop_geo_rebuild()

    body = api.get(f"/api/shops/{centre.id}/nearby").json()

    assert [r["id"] for r in body["results"]] == [near.id]
    assert body["count"] == 1


@pytest.mark.django_db
def test_a_shop_missing_from_the_index_is_searched_from_its_coordinates(api, redis_client) -> None:
    food = ShopTypeFactory()
    centre = ShopFactory(type=food, x=CENTRE[0], y=CENTRE[1])
    near = ShopFactory(type=food, x=CENTRE[0] + 0.001, y=CENTRE[1])
    services.shop_geo_rebuild()
    redis_client.zrem(keys.geo_shops(food.id), centre.id)  # its index entry is lost

    body = api.get(f"/api/shops/{centre.id}/nearby").json()

    assert [r["id"] for r in body["results"]] == [near.id]


@pytest.mark.django_db
@pytest.mark.parametrize("query", ["?radius=0", "?radius=5001", "?radius=abc", "?radius=1.5"])
def test_a_bad_radius_is_400(api, query) -> None:
    shop = ShopFactory()

    response = api.get(f"/api/shops/{shop.id}/nearby{query}")

    assert response.status_code == 400
    assert "radius" in response.json()["errors"]


@pytest.mark.django_db
def test_an_unknown_shop_is_404(api) -> None:
    assert api.get("/api/shops/987654321/nearby").status_code == 404
