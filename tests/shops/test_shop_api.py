"""Shop types and shop detail through the API, the cache, and the write paths."""

from __future__ import annotations

import json

import pytest
from django.db import transaction

from shops import keys, selectors, services
from shops.caches import shop_bloom
from shops.models import Shop, ShopType
from tests.factories import ShopFactory, ShopTypeFactory, default_city
from tests.helpers import TokenClient, run_concurrently
from toolkit.redis import keys as toolkit_keys

SHOP_FIELDS = {
    "id",
    "name",
    "type_id",
    "city_id",
    "images",
    "area",
    "address",
    "x",
    "y",
    "avg_price",
    "phone",
    "sold",
    "comments",
    "score",
    "ratings",
    "sub_scores",
    "sub_score_counts",
    "open_hours",
    "created_at",
    "updated_at",
    "favourites",
    "rank",
    "hours",
    "open_now",
}


def _geo(type_id: int) -> str:
    """The GEO set of a type's shops in the default city, where the factories put them."""
    return keys.geo_shops(default_city().id, type_id)


def _payload(type_id: int, **overrides) -> dict:
    body = {
        "name": "Lao Wang Noodles",
        "type_id": type_id,
        "images": ["https://img.example/1.jpg"],
        "area": "People's Square",
        "address": "1 Xizang Middle Road",
        "x": 121.47,
        "y": 31.23,
        "avg_price": 45,
        "open_hours": "07:00-21:00",
    }
    return {**body, **overrides}


def _admin_form(shop: Shop, **overrides) -> dict:
    """The admin change form of `shop` as the page shows it (the counters are read-only
    there, so not posted), with `overrides` applied."""
    form = {
        "name": shop.name,
        "type": shop.type_id,
        "city": shop.city_id,
        "images": "[]",
        "area": shop.area,
        "address": shop.address,
        "x": shop.x,
        "y": shop.y,
        "avg_price": shop.avg_price,
        "open_hours": shop.open_hours,
        # the shop staff inline, empty
        "staff-TOTAL_FORMS": 0,
        "staff-INITIAL_FORMS": 0,
    }
    return {**form, **overrides}


@pytest.mark.django_db
def test_shop_types_are_ordered_by_sort_and_served_from_cache(
    api, django_assert_num_queries
) -> None:
    ShopTypeFactory(name="KTV", sort=2)
    ShopTypeFactory(name="Food", sort=1)

    first = api.get("/api/shop-types")
    with django_assert_num_queries(0):
        second = api.get("/api/shop-types")

    assert first.status_code == 200
    assert [t["name"] for t in first.json()] == ["Food", "KTV"]
    assert set(first.json()[0]) == {"id", "name", "icon", "sort"}
    assert second.content == first.content


@pytest.mark.django_db
def test_english_readers_get_a_type_s_english_name_and_an_admin_edit_reaches_both(
    api, admin_client, django_capture_on_commit_callbacks
) -> None:
    """The categories are the product's words: translated where an English name is set
    (a type without one keeps its name), each language's list cached on its own, and
    both refreshed by an edit in the admin (the one place types are written)."""
    food = ShopTypeFactory(name="美食", name_en="Food", sort=1)
    ShopTypeFactory(name="轰趴馆", sort=2)

    def names(language: str) -> list[str]:
        answer = api.get("/api/shop-types", HTTP_ACCEPT_LANGUAGE=language)
        return [t["name"] for t in answer.json()]

    assert names("en") == ["Food", "轰趴馆"]  # both lists cached now
    assert names("zh-CN") == ["美食", "轰趴馆"]
    form = {"name": "美食天地", "name_en": "Eat", "icon": "", "sort": 1}
    with django_capture_on_commit_callbacks(execute=True):
        saved = admin_client.post(f"/admin/shops/shoptype/{food.id}/change/", form)
    assert saved.status_code == 302  # saved, back to the list
    assert names("en") == ["Eat", "轰趴馆"]
    assert names("zh-CN") == ["美食天地", "轰趴馆"]


@pytest.mark.django_db
def test_shop_type_change_through_the_service_refreshes_the_list(
    api, django_capture_on_commit_callbacks
) -> None:
    food = ShopTypeFactory(name="Food", sort=1)
    api.get("/api/shop-types")

    food.name = "Eat"
    with django_capture_on_commit_callbacks(execute=True):
        services.shop_type_save(shop_type=food)

    assert [t["name"] for t in api.get("/api/shop-types").json()] == ["Eat"]


@pytest.mark.django_db
def test_shop_detail_is_cached_json(api, django_assert_num_queries, redis_client) -> None:
    shop = ShopFactory()

    first = api.get(f"/api/shops/{shop.id}")
    with django_assert_num_queries(0):
        second = api.get(f"/api/shops/{shop.id}")

    assert first.status_code == 200
    assert first["Content-Type"] == "application/json"
    body = first.json()
    assert set(body) == SHOP_FIELDS | {"saved"}  # a reader's page: with their marker
    assert (body["id"], body["name"], body["type_id"]) == (shop.id, shop.name, shop.type_id)
    cached = redis_client.get(toolkit_keys.cache("shop", str(shop.id)))
    as_sent = selectors.with_saved(selectors.with_open_now(cached), False)
    assert second.content == first.content == as_sent
    assert cached.endswith(b',"hours":null}')  # the fast path finds them last, undecoded
    assert (body["hours"], body["open_now"]) == (None, None)


@pytest.mark.django_db
def test_unknown_shop_is_404(api) -> None:
    response = api.get("/api/shops/424242")

    assert response.status_code == 404
    assert response.json() == {"detail": "商户不存在。", "code": "shop_not_found"}  # the fast path


@pytest.mark.django_db
def test_head_takes_the_same_path_as_get(api, django_assert_num_queries) -> None:
    shop = ShopFactory()
    api.get(f"/api/shops/{shop.id}")  # cached

    with django_assert_num_queries(0):  # HEAD goes through the viewset, to the same cache
        assert api.head(f"/api/shops/{shop.id}").status_code == 200
    assert api.head("/api/shops/424242").status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize("shop_id", ["0", "99999999999999999999", "abc", "-5", "1.5", "%201"])
@pytest.mark.parametrize("method", ["get", "patch", "delete", "post", "put"])
def test_a_malformed_id_in_the_path_names_nothing(staff_api, shop_id, method) -> None:
    response = getattr(staff_api, method)(f"/api/shops/{shop_id}")

    assert response.status_code == 404  # the one rule: a path that names nothing is a 404
    assert response.json() == {"detail": "未找到。", "code": "not_found"}


@pytest.mark.django_db
def test_reads_of_a_missing_shop_reach_the_db_once(api, django_assert_num_queries) -> None:
    with django_assert_num_queries(1):  # the null marker answers every later read
        for _ in range(50):
            assert api.get("/api/shops/424242").status_code == 404


@pytest.mark.django_db(transaction=True)
def test_hundred_concurrent_reads_of_a_cold_shop_all_get_it(api) -> None:
    shop = ShopFactory()

    bodies = run_concurrently(
        lambda _: api.__class__().get(f"/api/shops/{shop.id}").content, workers=100
    )

    assert len(set(bodies)) == 1
    assert json.loads(bodies[0])["id"] == shop.id


@pytest.mark.django_db(transaction=True)
def test_staff_create_indexes_the_shop(staff_api, redis_client) -> None:
    food = ShopTypeFactory()
    services.shop_bloom_rebuild()

    response = staff_api.post("/api/shops", _payload(food.id), format="json")

    assert response.status_code == 201
    body = response.json()
    assert set(body) == SHOP_FIELDS
    shop = Shop.objects.get(pk=body["id"])
    assert (shop.name, shop.type_id, shop.images) == (
        "Lao Wang Noodles",
        food.id,
        ["https://img.example/1.jpg"],
    )
    assert redis_client.geopos(_geo(food.id), shop.id)[0] is not None
    assert shop_bloom().might_contain(str(shop.id))
    assert staff_api.get(f"/api/shops/{shop.id}").json()["name"] == "Lao Wang Noodles"


@pytest.mark.django_db
def test_only_staff_may_write_shops(api, user_api) -> None:
    shop = ShopFactory()
    payload = _payload(shop.type_id)

    assert api.post("/api/shops", payload, format="json").status_code == 401
    assert user_api.post("/api/shops", payload, format="json").status_code == 403
    assert user_api.patch(f"/api/shops/{shop.id}", {"name": "x"}, format="json").status_code == 403
    assert user_api.delete(f"/api/shops/{shop.id}").status_code == 403
    assert Shop.objects.count() == 1
    assert Shop.objects.get().name == shop.name


@pytest.mark.django_db
@pytest.mark.parametrize(
    "overrides",
    [
        {"x": 180.5}, {"y": 85.1}, {"x": "nan"}, {"y": "inf"}, {"x": "east"}, {"x": "121.4"},
        {"x": True}, {"type_id": None}, {"type_id": 1.5}, {"type_id": "1"}, {"name": ""},
        {"name": "n" * 129}, {"name": 7}, {"name": "\u202eevil"}, {"images": ["not a url"]},
        {"images": ["http://img.example/1.jpg"]}, {"images": ["//img.example/1.jpg"]},
        {"images": [f"https://img.example/{i}.jpg" for i in range(10)]}, {"avg_price": -1},
        {"avg_price": 5.0}, {"address": "a" * 256}, {"open_hours": "10:00\n22:00"},
    ],
)  # fmt: skip
def test_bad_shop_input_is_400_and_writes_nothing(staff_api, overrides) -> None:
    food = ShopTypeFactory()

    response = staff_api.post("/api/shops", {**_payload(food.id), **overrides}, format="json")

    assert response.status_code == 400
    assert set(response.json()["errors"]) == set(overrides)
    assert Shop.objects.count() == 0


@pytest.mark.django_db
def test_a_shop_of_a_type_that_does_not_exist_is_409_and_writes_nothing(staff_api) -> None:
    response = staff_api.post("/api/shops", _payload(424242), format="json")

    assert (response.status_code, response.json()["code"]) == (409, "shop_type_not_found")
    assert Shop.objects.count() == 0


@pytest.mark.django_db
def test_client_cannot_set_counters(staff_api) -> None:
    food = ShopTypeFactory()

    response = staff_api.post(
        "/api/shops", _payload(food.id, sold=999, comments=999, score=50, id=7), format="json"
    )

    shop = Shop.objects.get()
    assert (shop.sold, shop.comments, shop.score) == (0, 0, 0)
    assert response.json()["id"] == shop.id


@pytest.mark.django_db(transaction=True)
def test_api_update_makes_the_next_read_fresh_and_moves_the_geo_entry(
    staff_api, api, redis_client
) -> None:
    food, ktv = ShopTypeFactory(), ShopTypeFactory()
    shop = ShopFactory(type=food)
    services.shop_geo_rebuild()
    assert api.get(f"/api/shops/{shop.id}").json()["name"] == shop.name  # now cached

    response = staff_api.patch(
        f"/api/shops/{shop.id}", {"name": "Renamed", "type_id": ktv.id, "x": 121.5}, format="json"
    )

    assert response.status_code == 200
    fresh = api.get(f"/api/shops/{shop.id}").json()
    assert (fresh["name"], fresh["type_id"], fresh["x"]) == ("Renamed", ktv.id, 121.5)
    assert redis_client.zscore(_geo(food.id), shop.id) is None
    assert redis_client.geopos(_geo(ktv.id), shop.id)[0][0] == pytest.approx(121.5, abs=1e-5)


@pytest.mark.django_db(transaction=True)
def test_put_replaces_the_editable_fields(staff_api) -> None:
    shop = ShopFactory()

    response = staff_api.put(
        f"/api/shops/{shop.id}", _payload(shop.type_id, name="Put"), format="json"
    )
    partial = staff_api.put(f"/api/shops/{shop.id}", {"name": "Only name"}, format="json")

    assert response.status_code == 200
    assert Shop.objects.get(pk=shop.pk).name == "Put"
    assert partial.status_code == 400  # PUT needs every required field


@pytest.mark.django_db(transaction=True)
def test_delete_removes_the_shop_everywhere(staff_api, api, redis_client) -> None:
    shop = ShopFactory()
    services.shop_geo_rebuild()
    api.get(f"/api/shops/{shop.id}")

    assert staff_api.delete(f"/api/shops/{shop.id}").status_code == 204

    assert api.get(f"/api/shops/{shop.id}").status_code == 404
    assert redis_client.zscore(_geo(shop.type_id), shop.id) is None
    assert staff_api.delete(f"/api/shops/{shop.id}").status_code == 404


@pytest.mark.django_db(transaction=True)
def test_rolled_back_update_leaves_cache_and_index_as_they_were(api, redis_client) -> None:
    shop = ShopFactory()
    services.shop_geo_rebuild()
    cached = api.get(f"/api/shops/{shop.id}").content
    geo_before = redis_client.geopos(_geo(shop.type_id), shop.id)

    def update_then_fail() -> None:
        with transaction.atomic():
            shop.name, shop.x = "Never committed", 100.0
            services.shop_save(shop=shop)
            raise RuntimeError("a later step of the same transaction failed")

    with pytest.raises(RuntimeError):
        update_then_fail()

    assert Shop.objects.get(pk=shop.pk).name != "Never committed"
    again = selectors.with_open_now(redis_client.get(toolkit_keys.cache("shop", str(shop.id))))
    assert selectors.with_saved(again, False) == cached
    assert redis_client.geopos(_geo(shop.type_id), shop.id) == geo_before


@pytest.mark.django_db(transaction=True)
def test_admin_save_makes_the_next_read_fresh(admin_client, api) -> None:
    shop = ShopFactory()
    api.get(f"/api/shops/{shop.id}")
    form = _admin_form(shop, name="Edited in admin", avg_price=99)

    response = admin_client.post(f"/admin/shops/shop/{shop.id}/change/", form)

    assert response.status_code == 302, response.content[:3000]
    fresh = api.get(f"/api/shops/{shop.id}").json()
    assert (fresh["name"], fresh["avg_price"]) == ("Edited in admin", 99)


@pytest.mark.django_db(transaction=True)
def test_concurrent_type_changes_leave_the_shop_in_exactly_one_geo_set(
    staff_api, redis_client
) -> None:
    types = [ShopTypeFactory() for _ in range(4)]
    shop = ShopFactory(type=types[0])
    services.shop_geo_rebuild()

    def patch(i: int) -> int:
        client = TokenClient(staff_api.token)
        target = types[1 + i % 3]
        return client.patch(
            f"/api/shops/{shop.id}", {"type_id": target.id}, format="json"
        ).status_code

    assert set(run_concurrently(patch, workers=12)) == {200}

    final_type = Shop.objects.get(pk=shop.pk).type_id
    holders = [t.id for t in types if redis_client.zscore(_geo(t.id), shop.id) is not None]
    assert holders == [final_type]


@pytest.mark.django_db(transaction=True)
def test_an_edit_after_a_delete_is_404_and_does_not_bring_the_shop_back(
    staff_api, api, redis_client
) -> None:
    shop = ShopFactory()
    services.shop_geo_rebuild()
    api.get(f"/api/shops/{shop.id}")  # cached
    assert staff_api.delete(f"/api/shops/{shop.id}").status_code == 204

    response = staff_api.patch(f"/api/shops/{shop.id}", {"name": "Zombie"}, format="json")

    assert response.status_code == 404
    assert response.json()["code"] == "shop_not_found"
    assert not Shop.objects.filter(pk=shop.id).exists()
    assert redis_client.zscore(_geo(shop.type_id), shop.id) is None
    cache_key = toolkit_keys.cache("shop", str(shop.id))
    assert redis_client.get(cache_key) is None  # evicted by the delete, not refilled
    assert api.get(f"/api/shops/{shop.id}").status_code == 404
    assert redis_client.get(cache_key) == b""  # now the null marker


@pytest.mark.django_db(transaction=True)
def test_patch_writes_only_the_fields_it_was_given(staff_api) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    shop = ShopFactory(avg_price=80)

    with CaptureQueriesContext(connection) as queries:
        staff_api.patch(f"/api/shops/{shop.id}", {"name": "Only the name"}, format="json")

    (update,) = [q["sql"] for q in queries if q["sql"].startswith("UPDATE")]
    assert "avg_price" not in update
    assert "name" in update


@pytest.mark.django_db(transaction=True)
def test_an_empty_patch_writes_nothing(staff_api) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    shop = ShopFactory()

    with CaptureQueriesContext(connection) as queries:
        response = staff_api.patch(f"/api/shops/{shop.id}", {}, format="json")

    assert response.status_code == 200
    assert response.json()["name"] == shop.name
    assert not [q for q in queries if q["sql"].startswith("UPDATE")]


@pytest.mark.django_db(transaction=True)
def test_a_redis_failure_after_commit_does_not_fail_the_write(staff_api, monkeypatch) -> None:
    shop = ShopFactory()

    def redis_down(*args, **kwargs):
        raise ConnectionError("redis is down")

    monkeypatch.setattr(services, "shop_indexes_sync", redis_down)

    response = staff_api.patch(f"/api/shops/{shop.id}", {"name": "Saved anyway"}, format="json")

    assert response.status_code == 200
    assert Shop.objects.get(pk=shop.pk).name == "Saved anyway"


@pytest.mark.django_db(transaction=True)
def test_bloom_rebuild_keeps_a_shop_created_while_it_ran(monkeypatch) -> None:
    from toolkit.redis.bloom import BloomFilter

    ShopFactory()
    real_rebuild = BloomFilter.rebuild
    created = []

    def rebuild_with_a_concurrent_create(self, items, **options):
        items = list(items)  # the rebuild has read the table...
        # ...when a staff user adds a shop: its bit goes to the old filter, which the
        # rebuild is about to replace.
        created.append(services.shop_save(shop=ShopFactory.build(type=ShopTypeFactory())))
        return real_rebuild(self, items, **options)

    monkeypatch.setattr(BloomFilter, "rebuild", rebuild_with_a_concurrent_create)

    services.shop_bloom_rebuild()

    assert shop_bloom().might_contain(str(created[0].pk))


@pytest.mark.django_db(transaction=True)
def test_admin_type_change_moves_the_geo_entry(admin_client, redis_client) -> None:
    food, ktv = ShopTypeFactory(), ShopTypeFactory()
    shop = ShopFactory(type=food)
    services.shop_geo_rebuild()
    form = _admin_form(shop, type=ktv.id)

    assert admin_client.post(f"/admin/shops/shop/{shop.id}/change/", form).status_code == 302

    assert redis_client.zscore(_geo(food.id), shop.id) is None
    assert redis_client.zscore(_geo(ktv.id), shop.id) is not None


@pytest.mark.django_db
def test_admin_refuses_coordinates_redis_cannot_index(admin_client) -> None:
    shop = ShopFactory()

    response = admin_client.post(
        f"/admin/shops/shop/{shop.id}/change/", _admin_form(shop, x=500, y=89)
    )

    assert response.status_code == 200  # the form comes back with errors
    assert set(response.context["adminform"].form.errors) == {"x", "y"}
    assert Shop.objects.get(pk=shop.pk).x == shop.x


@pytest.mark.django_db
def test_shop_type_with_shops_cannot_be_deleted(staff_user) -> None:
    from toolkit.errors import Conflict

    shop = ShopFactory()

    with pytest.raises(Conflict) as refused:
        services.shop_type_delete(shop_type=shop.type)
    assert refused.value.code == "shop_type_in_use"
    assert ShopType.objects.filter(pk=shop.type_id).exists()


@pytest.mark.django_db
def test_a_shop_with_vouchers_cannot_be_deleted(staff_api, redis_client) -> None:
    from tests.factories import NormalVoucherFactory

    voucher = NormalVoucherFactory()

    response = staff_api.delete(f"/api/shops/{voucher.shop_id}")

    assert response.status_code == 409
    assert response.json()["code"] == "shop_in_use"
    assert Shop.objects.filter(pk=voucher.shop_id).exists()
