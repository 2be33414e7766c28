"""Shops near a shop: the other shops of its type around it (GEOSEARCH FROMMEMBER),
nearest first, paged, each with its distance from the shop."""

from __future__ import annotations

import random

import pytest

from shops import keys, selectors, services
from tests.factories import ShopFactory, ShopTypeFactory, default_city
from tests.helpers import all_pages
from tests.shops.test_shop_list import CENTRE, haversine


def _geo(type_id: int) -> str:
    """The GEO set of a type's shops in the default city, where the factories put them."""
    return keys.geo_shops(default_city().id, type_id)


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
    redis_client.zrem(_geo(food.id), centre.id)  # its index entry is lost

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


@pytest.mark.django_db
def test_any_first_few_hits_are_those_of_the_whole_sorted_list(redis_client) -> None:
    """`nearby_hits` parses only the first pairs of Redis's ASC reply and their ties: for
    every cut, the same shops in the same order (ties by id) as sorting every hit."""
    food = ShopTypeFactory()
    rng = random.Random(5)
    spots = [(CENTRE[0] + rng.uniform(-0.01, 0.01), CENTRE[1]) for _ in range(6)]
    centre = ShopFactory(type=food, x=CENTRE[0], y=CENTRE[1])
    for _ in range(30):
        ShopFactory(type=food, x=rng.choice(spots)[0], y=CENTRE[1])  # many ties per spot
    for _ in range(3):
        ShopFactory(type=food, x=CENTRE[0], y=CENTRE[1])  # ties with the shop itself, at 0 m
    services.shop_geo_rebuild()
    search = ("GEOSEARCH", _geo(food.id), "FROMLONLAT", *CENTRE)
    reply = redis_client.execute_command(*search, "BYRADIUS", 5000, "m", "WITHDIST", "ASC")
    total, everything = selectors.nearby_hits([reply])
    assert total == len(everything) == 34

    # From the shop itself (its stored position, not the centre's exact one).
    around = ("GEOSEARCH", _geo(food.id), "FROMMEMBER", centre.id)
    from_shop = redis_client.execute_command(*around, "BYRADIUS", 5000, "m", "WITHDIST", "ASC")
    others = [hit for hit in selectors.nearby_hits([from_shop])[1] if hit[1] != centre.id]
    document = {"id": centre.id, "type_id": food.id, "x": centre.x, "y": centre.y}

    for first in range(1, total + 2):
        assert selectors.nearby_hits([reply], first=first) == (total, everything[:first])
        count, near = selectors.shops_near_shop(shop=document, radius_m=5000, first=first)
        assert (count, near) == (total - 1, others[:first])
