"""The hot reads' caches (issue 22) are evicted by every write that changes what they
hold: a write through the API (or the admin, or a like) is seen on the next read, and a
read that hits them asks the database nothing."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from blogs.models import Blog
from shops import services as shop_services
from tests.conftest import client_for
from tests.factories import BlogFactory, ShopFactory, UserFactory
from tests.vouchers.sales import start_sale
from vouchers import shard

pytestmark = pytest.mark.django_db(transaction=True)  # evictions run after commit


def _hot_ids(api) -> list[int]:  # type: ignore[no-untyped-def]
    return [blog["id"] for blog in api.get("/api/blogs/hot").json()["results"]]


def test_the_hot_list_follows_likes_new_blogs_and_deletes(user, user_api, api) -> None:
    older, newer = BlogFactory(), BlogFactory()
    assert _hot_ids(api) == [newer.id, older.id]  # no likes: newest first
    with CaptureQueriesContext(connection) as queries:
        _hot_ids(api)
    assert len(queries) == 0  # the hot list and the blogs from their caches

    user_api.post(f"/api/blogs/{older.id}/like")
    assert _hot_ids(api) == [older.id, newer.id]  # a like reorders it at once
    user_api.delete(f"/api/blogs/{older.id}/like")
    assert _hot_ids(api) == [newer.id, older.id]

    created = user_api.post("/api/blogs", {"title": "t", "content": "c"}, format="json").json()
    assert api.get("/api/blogs/hot").json()["count"] == 3
    assert _hot_ids(api)[0] == created["id"]
    user_api.delete(f"/api/blogs/{created['id']}")
    assert _hot_ids(api) == [newer.id, older.id]
    Blog.objects.filter(pk=older.pk).delete()  # however a blog goes (the admin, a cascade)
    assert _hot_ids(api) == [newer.id]


def test_a_user_s_page_shows_their_new_name_at_once(user, user_api, api) -> None:
    BlogFactory(user=user)
    assert api.get(f"/api/users/{user.id}/blogs").json()["user"]["nick_name"] == user.nick_name

    user_api.patch("/api/users/me", {"nick_name": "New Name"}, format="json")

    assert api.get(f"/api/users/{user.id}/blogs").json()["user"]["nick_name"] == "New Name"
    user.is_active = False
    user.save()
    assert api.get(f"/api/users/{user.id}/blogs").status_code == 404  # disabled: gone


def test_shop_lists_show_a_shop_s_edit_at_once(staff_api, api) -> None:
    centre = ShopFactory(x=121.4737, y=31.2304)
    neighbour = ShopFactory(type=centre.type, x=121.4747, y=31.2304, name="Before")
    shop_services.shop_geo_rebuild()
    near_point = f"/api/shops?x=121.4737&y=31.2304&type_id={centre.type_id}"
    assert [s["name"] for s in api.get(near_point).json()["results"]][1] == "Before"

    staff_api.patch(f"/api/shops/{neighbour.id}", {"name": "After"}, format="json")

    assert [s["name"] for s in api.get(near_point).json()["results"]][1] == "After"
    nearby = api.get(f"/api/shops/{centre.id}/nearby").json()["results"]
    assert [s["name"] for s in nearby] == ["After"]
    staff_api.delete(f"/api/shops/{neighbour.id}")
    assert [s["id"] for s in api.get(near_point).json()["results"]] == [centre.id]


def test_the_activity_list_is_a_snapshot_at_most_its_max_age_old(
    settings, staff_api, api, fake_clock, redis_client
) -> None:
    settings.SECKILL_ACTIVITIES_MAX_AGE = 60.0  # on, and long enough for the test
    sale = start_sale(stock=5)
    listed = api.get("/api/vouchers/activities").json()
    assert [(v["id"], v["remaining"]) for v in listed] == [(sale.id, 5)]
    redis_client.decr(shard.stock_key(sale.id))  # a grab: the snapshot may show 5 a while
    assert api.get("/api/vouchers/activities").json()[0]["remaining"] == 5

    settings.SECKILL_ACTIVITIES_MAX_AGE = 0.0  # older than that now: read anew
    assert api.get("/api/vouchers/activities").json()[0]["remaining"] == 4

    settings.SECKILL_ACTIVITIES_MAX_AGE = 60.0
    staff_api.post(f"/api/vouchers/{sale.id}/void")  # this process's snapshot goes with it

    assert api.get("/api/vouchers/activities").json() == []


def test_me_needs_no_query_and_my_vouchers_one() -> None:
    user = UserFactory()
    api = client_for(user)
    api.get("/api/users/me")
    with CaptureQueriesContext(connection) as queries:
        api.get("/api/users/me")
        api.get("/api/voucher-orders")
    assert len(queries) == 1  # the orders, their vouchers joined
