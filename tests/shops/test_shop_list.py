"""Shop lists: by type, by name, and nearby with Redis GEO."""

from __future__ import annotations

import math
import random

import pytest

from shops import services
from tests.factories import ShopFactory, ShopTypeFactory
from tests.helpers import all_pages

CENTRE = (121.4737, 31.2304)
EARTH_RADIUS_M = 6372797.560856  # the radius Redis uses for GEO distances


def haversine(x1: float, y1: float, x2: float, y2: float) -> float:
    lon1, lat1, lon2, lat2 = map(math.radians, (x1, y1, x2, y2))
    a = (
        math.sin((lat2 - lat1) / 2) ** 2
        + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    )
    return 2 * EARTH_RADIUS_M * math.asin(math.sqrt(a))


@pytest.mark.django_db
def test_shops_of_a_type_five_a_page(api) -> None:
    food, other = ShopTypeFactory(), ShopTypeFactory()
    mine = [ShopFactory(type=food) for _ in range(12)]
    ShopFactory(type=other)

    first = api.get(f"/api/shops?type_id={food.id}").json()
    third = api.get(f"/api/shops?type_id={food.id}&page=3").json()

    assert first["count"] == 12
    assert [s["id"] for s in first["results"]] == [s.id for s in mine[:5]]
    assert [s["id"] for s in third["results"]] == [s.id for s in mine[10:]]
    assert api.get(f"/api/shops?type_id={food.id}&page=4").json()["results"] == []
    assert len(api.get(f"/api/shops?type_id={food.id}&page_size=10").json()["results"]) == 10
    assert len(api.get(f"/api/shops?type_id={food.id}&page_size=50").json()["results"]) == 10


@pytest.mark.django_db
def test_search_by_name(api) -> None:
    ShopFactory(name="小杨生煎(人民广场店)")
    ShopFactory(name="Lao Wang Noodles")

    body = api.get("/api/shops", {"name": "生煎"}).json()

    assert [s["name"] for s in body["results"]] == ["小杨生煎(人民广场店)"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query",
    [
        "type_id=abc",
        "type_id=0",
        "type_id=99999999999999999999",
        "page=abc",
        "page=0",
        "page_size=-1",
        "type_id=1&x=121.4",
        "type_id=1&y=31.2",
        "type_id=1&x=181&y=31.2",
        "type_id=1&x=121.4&y=86",
        "type_id=1&x=nan&y=31.2",
        "type_id=1&x=121.4&y=-inf",
        "type_id=1&x=east&y=north",
        "name=" + "n" * 65,
        # Present but empty is not absent; full-width and signed digits are no ids.
        "type_id=",
        "page=",
        "page_size=",
        "name=",
        "x=&y=",
        "type_id=%EF%BC%91",
        "type_id=+1",
        "type_id=1.0",
        "x=1e999&y=0",
        "x=0x10&y=0",
    ],
)
def test_bad_list_queries_are_400(api, query) -> None:
    response = api.get(f"/api/shops?{query}")

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"


@pytest.mark.django_db
def test_nearby_matches_haversine_in_order_across_pages(api) -> None:
    food, other = ShopTypeFactory(), ShopTypeFactory()
    rng = random.Random(7)
    shops = [
        ShopFactory(
            type=food,
            x=CENTRE[0] + rng.uniform(-0.06, 0.06),
            y=CENTRE[1] + rng.uniform(-0.05, 0.05),
        )
        for _ in range(60)
    ]
    # Three shops at one spot: equal distances must still page without repeats or gaps.
    shops += [ShopFactory(type=food, x=121.48, y=31.235) for _ in range(3)]
    ShopFactory(type=other, x=CENTRE[0], y=CENTRE[1])  # another type, right at the centre
    services.shop_geo_rebuild()

    results = all_pages(api, f"/api/shops?type_id={food.id}&x={CENTRE[0]}&y={CENTRE[1]}")

    expected = sorted(
        (haversine(*CENTRE, s.x, s.y), s.id) for s in shops if haversine(*CENTRE, s.x, s.y) <= 5000
    )
    assert 20 < len(expected) < len(shops)  # some shops are out of range
    assert [r["id"] for r in results] == [shop_id for _, shop_id in expected]
    for result, (distance, _) in zip(results, expected, strict=True):
        assert result["distance"] == pytest.approx(distance, abs=1.0)
    assert len({r["id"] for r in results}) == len(results)


@pytest.mark.django_db
def test_nearby_page_count_and_empty_tail(api, django_assert_max_num_queries) -> None:
    food = ShopTypeFactory()
    for i in range(7):
        ShopFactory(type=food, x=CENTRE[0] + i * 0.001, y=CENTRE[1])
    services.shop_geo_rebuild()
    query = f"/api/shops?type_id={food.id}&x={CENTRE[0]}&y={CENTRE[1]}"
    api.get("/api/cities")  # the city list cached, as after any first read

    with django_assert_max_num_queries(1):  # the page's shops in one query, no COUNT
        first = api.get(query).json()

    assert first["count"] == 7
    assert [r["distance"] for r in first["results"]] == sorted(
        r["distance"] for r in first["results"]
    )
    assert api.get(query + "&page=9").json()["results"] == []


@pytest.mark.django_db
def test_nearby_with_no_index_is_empty_not_an_error(api) -> None:
    food = ShopTypeFactory()

    body = api.get(f"/api/shops?type_id={food.id}&x=121.47&y=31.23").json()

    assert body == {"count": 0, "next": None, "previous": None, "results": []}


@pytest.mark.django_db
def test_nearby_without_a_type_ranks_shops_of_every_type_and_filters_by_name(api) -> None:
    food, ktv = ShopTypeFactory(), ShopTypeFactory()
    near = ShopFactory(type=food, name="Noodles near", x=CENTRE[0] + 0.001, y=CENTRE[1])
    nearer = ShopFactory(type=ktv, name="KTV nearer", x=CENTRE[0] + 0.0005, y=CENTRE[1])
    ShopFactory(type=food, name="Noodles far", x=CENTRE[0] + 1, y=CENTRE[1])  # > 5 km
    services.shop_geo_rebuild()

    every_type = api.get(f"/api/shops?x={CENTRE[0]}&y={CENTRE[1]}").json()
    named = api.get("/api/shops", {"x": CENTRE[0], "y": CENTRE[1], "name": "Noodles"}).json()

    assert [s["id"] for s in every_type["results"]] == [nearer.id, near.id]
    assert [s["id"] for s in named["results"]] == [near.id]
