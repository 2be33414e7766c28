"""Shop list filters (area, price range, minimum score) and sorts (distance, score,
popularity), by id and near a point, where they apply to the GEO hits."""

from __future__ import annotations

import pytest

from shops import services
from tests.factories import ShopFactory, ShopTypeFactory

pytestmark = pytest.mark.django_db
CENTRE = {"x": 121.4737, "y": 31.2304}


def _ids(response) -> list[int]:
    assert response.status_code == 200, response.content
    return [shop["id"] for shop in response.json()["results"]]


@pytest.fixture
def shops():
    """Four shops of two types, from the centre outwards (about 0, 110, 220, 330 m)."""
    food, ktv = ShopTypeFactory(), ShopTypeFactory()
    rows = [
        ShopFactory(type=food, area="人民广场", avg_price=50, score=35, comments=9, sold=1,
                    x=121.4737, y=31.2304),
        ShopFactory(type=ktv, area="静安寺", avg_price=120, score=48, comments=2, sold=50,
                    x=121.4737, y=31.2314),
        ShopFactory(type=food, area="人民广场", avg_price=300, score=45, comments=9, sold=7,
                    x=121.4737, y=31.2324),
        ShopFactory(type=ktv, area="人民广场", avg_price=80, score=20, comments=0, sold=0,
                    x=121.4737, y=31.2334),
    ]  # fmt: skip
    services.shop_geo_rebuild()
    return rows


def test_area_price_and_score_filter_the_list(api, shops) -> None:
    a, b, c, d = shops

    assert _ids(api.get("/api/shops", {"area": "人民广场"})) == [a.id, c.id, d.id]
    assert _ids(api.get("/api/shops", {"price_min": 80, "price_max": 120})) == [b.id, d.id]
    assert _ids(api.get("/api/shops", {"score_min": 45})) == [b.id, c.id]
    both = {"area": "人民广场", "score_min": 30, "type_id": a.type_id}
    assert _ids(api.get("/api/shops", both)) == [a.id, c.id]
    assert api.get("/api/shops", {"area": "人民广场"}).json()["count"] == 3


def test_sorts_by_score_and_popularity_ties_by_id(api, shops) -> None:
    a, b, c, d = shops

    assert _ids(api.get("/api/shops", {"sort": "score"})) == [b.id, c.id, a.id, d.id]
    # Most reviews first, then most sold: a and c tie on reviews, c sold more.
    assert _ids(api.get("/api/shops", {"sort": "popular"})) == [c.id, a.id, b.id, d.id]
    assert _ids(api.get("/api/shops")) == [a.id, b.id, c.id, d.id]  # by id, as before


def test_near_a_point_of_every_type_nearest_first_by_default(api, shops) -> None:
    body = api.get("/api/shops", CENTRE).json()

    assert [s["id"] for s in body["results"]] == [s.id for s in shops]  # two types
    assert body["results"][0]["distance"] < 1


def test_filters_and_sorts_apply_to_the_hits_near_a_point(api, shops) -> None:
    a, b, c, d = shops

    filtered = api.get("/api/shops", {**CENTRE, "area": "人民广场", "price_max": 100}).json()
    assert [s["id"] for s in filtered["results"]] == [a.id, d.id]
    assert filtered["count"] == 2
    assert filtered["results"][1]["distance"] > 300
    assert _ids(api.get("/api/shops", {**CENTRE, "sort": "score"})) == [b.id, c.id, a.id, d.id]
    popular = {**CENTRE, "sort": "popular", "type_id": a.type_id}
    assert _ids(api.get("/api/shops", popular)) == [c.id, a.id]
    paged = {**CENTRE, "sort": "score", "page": 2, "page_size": 3}
    assert _ids(api.get("/api/shops", paged)) == [d.id]


def test_filters_near_a_point_cost_one_query(api, shops, django_assert_num_queries) -> None:
    api.get("/api/shops", CENTRE)  # the shops' documents cached

    with django_assert_num_queries(1):
        _ids(api.get("/api/shops", {**CENTRE, "score_min": 40}))


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"price_min": -1}, "price_min"),
        ({"price_max": "1e3"}, "price_max"), ({"score_min": 51}, "score_min"),
        ({"score_min": "4.5"}, "score_min"), ({"sort": "distance"}, "sort"),
        ({"sort": "nearest"}, "sort"), ({"sort": ""}, "sort"), ({"area": ""}, "area"),
        ({"area": "人民\u202e广场"}, "area"), ({"area": "x" * 65}, "area"),
    ],
)  # fmt: skip
def test_bad_filters_are_400_with_the_field_named(api, query, field) -> None:
    response = api.get("/api/shops", query)

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert field in response.json()["errors"]


def test_a_price_range_of_one_price_is_fine(api, shops) -> None:
    assert _ids(api.get("/api/shops", {"price_min": 120, "price_max": 120})) == [shops[1].id]


def test_an_empty_price_range_finds_nothing(api, shops) -> None:
    # A schema-valid range (schemathesis, ST202): no shop's price lies in it, so no shop.
    for query in (
        {"price_min": 200, "price_max": 100},
        {**CENTRE, "price_min": 200, "price_max": 100},
    ):
        response = api.get("/api/shops", query)
        assert (response.status_code, response.json()["results"]) == (200, [])
