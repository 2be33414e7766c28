"""The hot reads' caches (issue 22) are evicted by every write that changes what they
hold: a write through the API (or the admin, or a like) is seen on the next read, and a
read that hits them asks the database nothing."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts import tokens
from blogs.models import Blog
from shops import services as shop_services
from tests.factories import BlogFactory, NormalVoucherFactory, ShopFactory, UserFactory
from tests.helpers import client_for
from tests.vouchers.sales import drain_all, start_sale
from vouchers.caches import shop_vouchers_cache
from vouchers.coupons import jobs
from vouchers.models import VoucherOrder
from vouchers.sale import shard

pytestmark = pytest.mark.django_db(transaction=True)  # evictions run after commit


def _hot_ids(api) -> list[int]:
    return [blog["id"] for blog in api.get("/api/blogs/hot").json()["results"]]


def test_the_hot_list_follows_likes_new_blogs_and_deletes(user, user_api, api) -> None:
    older, newer = BlogFactory(), BlogFactory()
    assert _hot_ids(api) == [newer.id, older.id]  # no likes: newest first
    with CaptureQueriesContext(connection) as queries:
        _hot_ids(api)
    assert len(queries) == 0  # the hot list and the blogs from their caches

    user_api.post(f"/api/blogs/{older.id}/like")
    assert _hot_ids(api) == [older.id, newer.id]  # a like reorders it at once
    assert api.get("/api/blogs/hot").json()["results"][0]["liked"] == 1  # and counts
    assert api.get(f"/api/blogs/{older.id}").json()["liked"] == 1
    user_api.delete(f"/api/blogs/{older.id}/like")
    assert _hot_ids(api) == [newer.id, older.id]
    assert api.get(f"/api/blogs/{older.id}").json()["liked"] == 0

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
    user.is_active = True
    user.save(update_fields=["is_active"])
    assert api.get(f"/api/users/{user.id}/blogs").status_code == 200  # re-enabled: back


def test_a_late_token_refresh_writes_the_latest_profile(user, user_api) -> None:
    """Two saves' after-commit refreshes may run out of order: each reads the row."""
    user_api.patch("/api/users/me", {"nick_name": "First"}, format="json")
    user_api.patch("/api/users/me", {"nick_name": "Second"}, format="json")

    tokens.tokens_refresh_user(user.id)  # the first save's refresh, arriving last

    assert user_api.get("/api/users/me").json()["nick_name"] == "Second"


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


def _listed(api, shop_id: int) -> list[tuple]:
    body = api.get(f"/api/shops/{shop_id}/vouchers").json()
    return [(v["title"], v["stock"], v["remaining"]) for v in body]


def test_a_shop_s_voucher_list_follows_every_write(staff_api, user_api, api) -> None:
    shop, other = ShopFactory(), ShopFactory()
    voucher = NormalVoucherFactory(shop=shop, title="Cash", stock=3, pay_value=100)
    assert _listed(api, shop.id) == [("Cash", 3, 3)]
    with CaptureQueriesContext(connection) as queries:
        _listed(api, shop.id)
    assert len(queries) == 0  # the list from its cache, no shop lookup either

    order_id = user_api.post(f"/api/vouchers/{voucher.id}/claim").json()["order_id"]
    assert _listed(api, shop.id) == [("Cash", 2, 2)]  # a claim takes a unit
    user_api.post(f"/api/voucher-orders/{order_id}/cancel")
    assert _listed(api, shop.id) == [("Cash", 3, 3)]  # a cancel gives it back

    staff_api.patch(f"/api/vouchers/{voucher.id}", {"title": "Cash!"}, format="json")
    assert _listed(api, shop.id) == [("Cash!", 3, 3)]
    staff_api.post(f"/api/vouchers/{voucher.id}/void")
    assert _listed(api, shop.id) == []

    unclaimed = NormalVoucherFactory(shop=other, title="Moves")  # a voucher with coupons stays
    assert _listed(api, other.id) == [("Moves", None, None)]
    staff_api.patch(f"/api/vouchers/{unclaimed.id}", {"shop_id": shop.id}, format="json")
    assert _listed(api, other.id) == []  # moved: gone from one list, on the other
    assert _listed(api, shop.id) == [("Moves", None, None)]
    staff_api.delete(f"/api/vouchers/{unclaimed.id}")
    assert _listed(api, shop.id) == []

    assert staff_api.delete(f"/api/shops/{other.id}").status_code == 204  # none left on it
    assert api.get(f"/api/shops/{other.id}/vouchers").status_code == 404  # not a cached []


def test_an_unknown_shop_s_voucher_list_is_remembered_briefly(api, redis_client) -> None:
    """A probe of random shop ids must not fill the cache with empty lists for half an
    hour: "no such shop" is kept for seconds."""
    assert api.get("/api/shops/987654/vouchers").status_code == 404
    assert api.get("/api/shops/987654/vouchers").status_code == 404
    assert 0 < redis_client.pttl(shop_vouchers_cache().key(987654)) <= 5000


def test_a_shop_s_voucher_list_follows_a_sale_and_new_vouchers(
    staff_api, user_api, api, fake_clock
) -> None:
    sale = start_sale(stock=5, title="Sale")
    shop_id = sale.shop_id
    assert _listed(api, shop_id) == [("Sale", 5, 5)]

    user_api.post(f"/api/vouchers/{sale.id}/seckill")
    assert _listed(api, shop_id) == [("Sale", 5, 4)]  # live stock: at once
    drain_all()
    assert _listed(api, shop_id) == [("Sale", 4, 4)]  # the database's, once drained

    body = {"shop_id": shop_id, "title": "New", "pay_value": 0, "actual_value": 500}
    staff_api.post("/api/vouchers", {**body, "type": "normal"}, format="json")
    assert sorted(_listed(api, shop_id)) == [("New", None, None), ("Sale", 4, 4)]


def _tabs(api) -> dict[str, list[tuple[str, str]]]:
    """Every tab of "my vouchers": (order id, voucher title) newest first."""
    tabs = {}
    for tab in ("unpaid", "unused", "used", "expired"):
        results = api.get(f"/api/voucher-orders?status={tab}").json()["results"]
        tabs[tab] = [(o["id"], o["voucher"]["title"]) for o in results]
    return tabs


def test_my_vouchers_follow_every_write_of_my_orders(user, user_api, staff_api, fake_clock) -> None:
    paid = NormalVoucherFactory(title="Paid", pay_value=100, valid_days=2)
    free = NormalVoucherFactory(title="Free", pay_value=0, shop=paid.shop)
    empty: dict[str, list[Any]] = {"unpaid": [], "unused": [], "used": [], "expired": []}
    assert _tabs(user_api) == empty

    first = user_api.post(f"/api/vouchers/{paid.id}/claim").json()["order_id"]
    assert _tabs(user_api) == {**empty, "unpaid": [(first, "Paid")]}  # a claim
    with CaptureQueriesContext(connection) as queries:
        _tabs(user_api)
    assert len(queries) == 0  # the orders and their vouchers from the caches
    user_api.post(f"/api/voucher-orders/{first}/cancel")
    assert _tabs(user_api) == empty  # a cancel

    second = user_api.post(f"/api/vouchers/{paid.id}/claim").json()["order_id"]
    user_api.post(f"/api/voucher-orders/{second}/pay")
    assert _tabs(user_api) == {**empty, "unused": [(second, "Paid")]}  # a payment
    staff_api.patch(f"/api/vouchers/{paid.id}", {"title": "Renamed"}, format="json")
    assert _tabs(user_api) == {**empty, "unused": [(second, "Renamed")]}  # the voucher's edit
    user_api.post(f"/api/voucher-orders/{second}/refund")
    assert _tabs(user_api) == empty  # a refund

    code = user_api.post(f"/api/vouchers/{free.id}/claim").json()["order_id"]
    coupon = VoucherOrder.objects.get(pk=code)
    staff_api.post("/api/redemptions", {"code": coupon.redeem_code}, format="json")
    assert _tabs(user_api) == {**empty, "used": [(code, "Free")]}  # a redemption

    fake_clock.advance(1)  # ids are time-ordered to the second (two shards' counters)
    third = user_api.post(f"/api/vouchers/{paid.id}/claim").json()["order_id"]
    user_api.post(f"/api/voucher-orders/{third}/pay")
    body = {"shop_id": paid.shop_id, "amount": 10_000, "coupon_id": third}
    bill = user_api.post("/api/shop-orders", body, format="json").json()["id"]
    assert [o[0] for o in _tabs(user_api)["used"]] == [third, code]  # a checkout
    user_api.post(f"/api/shop-orders/{bill}/refund")
    assert _tabs(user_api)["unused"] == [(third, "Renamed")]  # its refund gives it back
    fake_clock.advance(3 * 24 * 3600)
    assert _tabs(user_api)["expired"] == [(third, "Renamed")]  # the clock alone


def test_a_pay_timeout_and_a_refund_show_in_both_lists(
    user, user_api, api, fake_clock, settings
) -> None:
    """The writes that give a unit back outside the buyer's own cancel: the pay timeout
    (a Celery job) and the refund of a limited voucher's coupon."""
    few = NormalVoucherFactory(title="Few", stock=3, pay_value=100)
    unpaid = user_api.post(f"/api/vouchers/{few.id}/claim").json()["order_id"]
    assert (_listed(api, few.shop_id), _tabs(user_api)["unpaid"]) == (
        [("Few", 2, 2)],
        [(unpaid, "Few")],
    )

    fake_clock.advance(settings.ORDER_PAY_TIMEOUT + 1)
    assert jobs.settle_due_orders() == 1
    assert (_listed(api, few.shop_id), _tabs(user_api)["unpaid"]) == ([("Few", 3, 3)], [])

    paid = user_api.post(f"/api/vouchers/{few.id}/claim").json()["order_id"]
    user_api.post(f"/api/voucher-orders/{paid}/pay")
    assert (_listed(api, few.shop_id), _tabs(user_api)["unused"]) == (
        [("Few", 2, 2)],
        [(paid, "Few")],
    )
    assert user_api.post(f"/api/voucher-orders/{paid}/refund").status_code == 200
    assert (_listed(api, few.shop_id), _tabs(user_api)["unused"]) == ([("Few", 3, 3)], [])


def test_my_vouchers_show_a_drained_sale(user, user_api, fake_clock) -> None:
    sale = start_sale(stock=5, title="Sale", pay_value=0)
    assert user_api.get("/api/voucher-orders").json()["results"] == []

    order_id = user_api.post(f"/api/vouchers/{sale.id}/seckill").json()["order_id"]
    drain_all()

    mine = user_api.get("/api/voucher-orders").json()["results"]
    assert [(o["id"], o["voucher"]["title"]) for o in mine] == [(order_id, "Sale")]


def test_me_and_my_vouchers_need_no_query() -> None:
    user = UserFactory()
    api = client_for(user)
    api.get("/api/users/me")
    api.get("/api/voucher-orders")
    with CaptureQueriesContext(connection) as queries:
        api.get("/api/users/me")
        api.get("/api/voucher-orders")
    assert len(queries) == 0


def test_a_revoked_token_this_process_saw_reads_as_anonymous(user_api) -> None:
    """A signed-in read queues its reads with the token's refresh, keyed by the user id
    this process last saw for the token; the token's own reply decides."""
    blog = BlogFactory()
    user_api.post(f"/api/blogs/{blog.id}/like")
    assert user_api.get(f"/api/blogs/{blog.id}").json()["is_liked"] is True
    assert user_api.get("/api/feed").status_code == 200  # the token is remembered now

    assert user_api.post("/api/auth/logout").status_code in (200, 204)

    assert user_api.get("/api/feed").status_code == 401
    detail = user_api.get(f"/api/blogs/{blog.id}")
    assert (detail.status_code, detail.json()["is_liked"]) == (200, False)
