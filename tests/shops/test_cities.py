"""Cities (decisions 392-396): the cached city list, the `city` of every per-city read (shop
lists, nearby, search, the flash sales) with the default city without it, and a shop that
moves city taking its GEO entry, its search hits and its sales along at once."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.utils import translation

from search import index
from shops import keys, services
from shops.models import City, Shop
from tests.factories import CityFactory, ShopFactory, ShopTypeFactory, default_city
from tests.vouchers.sales import start_sale
from toolkit.errors import Conflict

SHANGHAI = (121.4737, 31.2304)
HANGZHOU = (120.1551, 30.2741)


def _hangzhou() -> City:
    return CityFactory(
        code="hangzhou", name="杭州", name_en="Hangzhou", x=HANGZHOU[0], y=HANGZHOU[1]
    )


def _names(response) -> list[str]:
    """The shops' names, or the sales' titles, a list answered."""
    assert response.status_code == 200, response.content
    body = response.json()
    items = body["results"] if isinstance(body, dict) else body
    return [item["name"] if "name" in item else item["title"] for item in items]


@pytest.mark.django_db
def test_the_city_list_is_cached_in_each_language_and_marks_the_default(
    api, django_assert_num_queries
) -> None:
    hangzhou = _hangzhou()

    zh = api.get("/api/cities")
    with django_assert_num_queries(0):
        again = api.get("/api/cities")
    en = api.get("/api/cities", HTTP_ACCEPT_LANGUAGE="en")

    assert zh.json() == [
        {"id": default_city().id, "code": "shanghai", "name": "上海", "x": SHANGHAI[0],
         "y": SHANGHAI[1], "default": True},
        {"id": hangzhou.id, "code": "hangzhou", "name": "杭州", "x": HANGZHOU[0],
         "y": HANGZHOU[1], "default": False},
    ]  # fmt: skip
    assert again.content == zh.content
    assert [c["name"] for c in en.json()] == ["Shanghai", "Hangzhou"]


@pytest.mark.django_db
def test_an_admin_edit_of_a_city_reaches_both_lists(
    api, admin_client, django_capture_on_commit_callbacks
) -> None:
    hangzhou = _hangzhou()
    api.get("/api/cities")
    api.get("/api/cities", HTTP_ACCEPT_LANGUAGE="en")  # both cached
    form = {
        "code": "hz",
        "name": "杭州市",
        "name_en": "Hangzhou City",
        "x": 120.2,
        "y": 30.3,
        "sort": 20,
    }

    with django_capture_on_commit_callbacks(execute=True):
        saved = admin_client.post(f"/admin/shops/city/{hangzhou.id}/change/", form)

    assert saved.status_code == 302, saved.content[:2000]
    assert api.get("/api/cities").json()[1]["name"] == "杭州市"
    assert api.get("/api/cities", HTTP_ACCEPT_LANGUAGE="en").json()[1]["code"] == "hz"
    assert api.get("/api/shops", {"city": "hz"}).status_code == 200  # the new code reads
    assert api.get("/api/shops", {"city": "hangzhou"}).status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path",
    [
        "/api/shops",
        "/api/shops?x=120.15&y=30.27",
        "/api/search?q=hotpot",
        "/api/vouchers/activities",
    ],
)
def test_a_city_of_no_city_is_404_and_a_malformed_one_400(api, path) -> None:
    separator = "&" if "?" in path else "?"

    unknown = api.get(f"{path}{separator}city=atlantis", HTTP_ACCEPT_LANGUAGE="en")
    malformed = api.get(f"{path}{separator}city=Hang%20Zhou")

    assert unknown.status_code == 404
    assert unknown.json() == {"detail": "No such city.", "code": "city_not_found"}
    assert malformed.status_code == 400
    assert list(malformed.json()["errors"]) == ["city"]


@pytest.mark.django_db
def test_lists_by_type_and_name_are_of_one_city_the_default_without_city(api) -> None:
    hangzhou, food = _hangzhou(), ShopTypeFactory()
    ShopFactory(type=food, name="生煎 Shanghai")
    ShopFactory(type=food, name="生煎 Hangzhou", city=hangzhou)

    assert _names(api.get("/api/shops", {"type_id": food.id})) == ["生煎 Shanghai"]
    assert _names(api.get("/api/shops", {"type_id": food.id, "city": "shanghai"})) == [
        "生煎 Shanghai"
    ]
    assert _names(api.get("/api/shops", {"type_id": food.id, "city": "hangzhou"})) == [
        "生煎 Hangzhou"
    ]
    by_name = api.get("/api/shops", {"name": "生煎", "city": "hangzhou", "sort": "score"})
    assert _names(by_name) == ["生煎 Hangzhou"]


@pytest.mark.django_db
def test_nearby_searches_the_city_s_sets_only(api) -> None:
    """A shop of the default city placed in Hangzhou (an operator's slip, say) is in the
    default city's set: a reader of Hangzhou never sees it there."""
    hangzhou, food, bar = _hangzhou(), ShopTypeFactory(), ShopTypeFactory()
    lake = ShopFactory(type=food, name="Lake", city=hangzhou, x=120.1561, y=30.2741)
    ShopFactory(type=bar, name="Bar", city=hangzhou, x=120.1571, y=30.2741)
    ShopFactory(type=food, name="Misplaced", x=120.1556, y=30.2741)
    services.shop_geo_rebuild()
    point = {"x": HANGZHOU[0], "y": HANGZHOU[1]}

    assert _names(api.get("/api/shops", {**point, "city": "hangzhou"})) == ["Lake", "Bar"]
    assert _names(api.get("/api/shops", {**point, "city": "hangzhou", "type_id": food.id})) == [
        "Lake"
    ]
    assert _names(api.get("/api/shops", {**point, "type_id": food.id})) == ["Misplaced"]
    assert _names(api.get(f"/api/shops/{lake.id}/nearby")) == []  # no other food in its city


@pytest.mark.django_db
def test_search_finds_the_city_s_shops_and_notes_of_every_city(api, eager_tasks) -> None:
    hangzhou = _hangzhou()
    ShopFactory(name="海底捞火锅(人民广场店)")
    ShopFactory(name="海底捞火锅(武林店)", city=hangzhou)
    index.rebuild()

    assert _names(api.get("/api/search", {"q": "火锅"})) == ["海底捞火锅(人民广场店)"]
    assert _names(api.get("/api/search", {"q": "火锅", "city": "hangzhou"})) == [
        "海底捞火锅(武林店)"
    ]
    assert api.get("/api/search", {"q": "火锅", "city": "hangzhou"}).json()["count"] == 1


@pytest.mark.django_db
def test_flash_sales_are_those_of_the_city_s_shops(api, fake_clock) -> None:
    hangzhou = _hangzhou()
    start_sale(title="In Shanghai")
    start_sale(title="In Hangzhou", shop=ShopFactory(city=hangzhou))

    assert _names(api.get("/api/vouchers/activities")) == ["In Shanghai"]
    assert _names(api.get("/api/vouchers/activities", {"city": "hangzhou"})) == ["In Hangzhou"]
    assert api.get("/api/vouchers/activities", {"city": "hangzhou", "tab": "upcoming"}).json() == []


@pytest.mark.django_db
def test_a_new_shop_is_in_the_city_it_names_or_the_default_one(staff_api) -> None:
    hangzhou, food = _hangzhou(), ShopTypeFactory()
    body = {"name": "n", "type_id": food.id, "address": "a", "x": 120.15, "y": 30.27}

    named = staff_api.post("/api/shops", {**body, "city_id": hangzhou.id}, format="json")
    unnamed = staff_api.post("/api/shops", body, format="json")
    unknown = staff_api.post("/api/shops", {**body, "city_id": 424242}, format="json")

    assert (named.status_code, named.json()["city_id"]) == (201, hangzhou.id)
    assert (unnamed.status_code, unnamed.json()["city_id"]) == (201, default_city().id)
    assert (unknown.status_code, unknown.json()["code"]) == (409, "city_not_found")
    assert Shop.objects.count() == 2


@pytest.mark.django_db
def test_a_city_with_shops_cannot_be_deleted() -> None:
    hangzhou = _hangzhou()
    ShopFactory(city=hangzhou)

    with translation.override("en"), pytest.raises(Conflict, match="Shops are still in") as refused:
        services.city_delete(city=hangzhou)

    assert refused.value.code == "city_in_use"
    assert City.objects.filter(pk=hangzhou.pk).exists()


@pytest.mark.django_db(transaction=True)
def test_a_shop_moving_city_leaves_every_list_of_its_old_city_at_once(
    staff_api, api, redis_client, eager_tasks, fake_clock
) -> None:
    """Through the write path, with every read cached first: its document (city_id), its
    GEO set, its search hits and its flash sale all follow the move."""
    hangzhou, food = _hangzhou(), ShopTypeFactory()
    shop = ShopFactory(type=food, name="火锅 Mover", x=SHANGHAI[0], y=SHANGHAI[1])
    start_sale(title="Mover's sale", shop=shop)
    services.shop_geo_rebuild()
    index.rebuild()
    near_shanghai = {"x": SHANGHAI[0], "y": SHANGHAI[1], "type_id": food.id}
    reads = {
        "list": lambda city: api.get("/api/shops", {"type_id": food.id, "city": city}),
        "nearby": lambda city: api.get("/api/shops", {**near_shanghai, "city": city}),
        "search": lambda city: api.get("/api/search", {"q": "火锅", "city": city}),
        "sales": lambda city: api.get("/api/vouchers/activities", {"city": city}),
    }
    before = {name: _names(read("shanghai")) for name, read in reads.items()}
    assert before == {
        "list": ["火锅 Mover"],
        "nearby": ["火锅 Mover"],
        "search": ["火锅 Mover"],
        "sales": ["Mover's sale"],
    }
    assert all(_names(read("hangzhou")) == [] for read in reads.values())

    moved = staff_api.patch(f"/api/shops/{shop.id}", {"city_id": hangzhou.id}, format="json")

    assert moved.status_code == 200
    assert api.get(f"/api/shops/{shop.id}").json()["city_id"] == hangzhou.id
    assert {name: _names(read("shanghai")) for name, read in reads.items()} == {
        "list": [],
        "nearby": [],
        "search": [],
        "sales": [],
    }
    assert {name: _names(read("hangzhou")) for name, read in reads.items()} == before
    assert redis_client.zscore(keys.geo_shops(default_city().id, food.id), shop.id) is None
    assert redis_client.zscore(keys.geo_shops(hangzhou.id, food.id), shop.id) is not None


@pytest.mark.django_db
def test_load_shop_geo_builds_a_set_per_city_and_type_and_drops_the_stale_ones(
    redis_client, capsys
) -> None:
    shanghai, hangzhou = default_city(), _hangzhou()
    food, bar = ShopTypeFactory(), ShopTypeFactory()
    here = [ShopFactory(type=food), ShopFactory(type=bar)]
    there = [ShopFactory(type=food, city=hangzhou, x=120.15, y=30.27) for _ in range(3)]
    left = ShopFactory(type=bar, city=hangzhou, x=120.15, y=30.27)
    redis_client.geoadd(keys.geo_shops(hangzhou.id, bar.id), [120.15, 30.27, left.id])
    left.type = food
    left.save()  # past the services: its old set still holds it, and a shop long gone
    redis_client.geoadd(keys.geo_shops(hangzhou.id, bar.id), [120.15, 30.27, 999_999])
    redis_client.geoadd(keys.geo_shops(424242, food.id), [120.15, 30.27, there[0].id])
    per_type = keys.geo_shops_per_type_pattern().replace("*", str(food.id))  # before cities
    redis_client.geoadd(per_type, [121.47, 31.23, here[0].id])

    call_command("load_shop_geo")

    def members(city: City, type_id: int) -> set[int]:
        return {int(m) for m in redis_client.zrange(keys.geo_shops(city.id, type_id), 0, -1)}

    assert members(shanghai, food.id) == {here[0].id}
    assert members(shanghai, bar.id) == {here[1].id}
    assert members(hangzhou, food.id) == {s.id for s in [*there, left]}
    assert not redis_client.exists(keys.geo_shops(hangzhou.id, bar.id))  # nobody is there
    assert not redis_client.exists(keys.geo_shops(424242, food.id))  # a city long gone
    assert not redis_client.exists(per_type)
    out = capsys.readouterr().out
    assert "GEO: 6 shops in 3 sets of a city and type (2 cities); Bloom: 6 ids" in out


@pytest.mark.django_db(transaction=True)
def test_geo_rebuild_keeps_a_city_move_made_while_it_ran(redis_client, monkeypatch) -> None:
    hangzhou, food = _hangzhou(), ShopTypeFactory()
    shop = ShopFactory(type=food)
    real_rename = redis_client.__class__.rename
    moved: list[bool] = []

    def rename_after_a_concurrent_move(self, src, dst):
        # An operator moves the shop to another city after the old set was read: its sync
        # updates the old sets, which this RENAME is about to replace.
        if not moved:
            shop.city = hangzhou
            services.shop_save(shop=shop, fields=["city"])
            moved.append(True)
        return real_rename(self, src, dst)

    monkeypatch.setattr(redis_client.__class__, "rename", rename_after_a_concurrent_move)

    services.shop_geo_rebuild()

    assert redis_client.zscore(keys.geo_shops(default_city().id, food.id), shop.id) is None
    assert redis_client.zscore(keys.geo_shops(hangzhou.id, food.id), shop.id) is not None
