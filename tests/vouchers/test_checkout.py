"""Coupons at the till: which apply to a bill, checkout with one (it moves to `used` with a
write-off in the same transaction), idempotent retries, and refunds."""

from __future__ import annotations

import pytest

from tests.factories import NormalVoucherFactory, ShopFactory
from tests.helpers import client_for, run_concurrently, throttle_rates
from vouchers.models import ShopOrder, VoucherOrder, WriteOff


def _coupon(api, voucher) -> str:
    order_id = api.post(f"/api/vouchers/{voucher.id}/claim").json()["order_id"]
    if VoucherOrder.objects.get(pk=order_id).status == "unpaid":
        api.post(f"/api/voucher-orders/{order_id}/pay")
    return order_id


def _checkout(api, shop, amount: int, coupon: str | None = None, **headers):
    body = {"shop_id": shop.id, "amount": amount}
    if coupon is not None:
        body["coupon_id"] = coupon
    return api.post("/api/shop-orders", body, format="json", **headers)


@pytest.fixture
def shop(db):
    return ShopFactory()


@pytest.mark.django_db
def test_usable_coupons_best_first_and_the_rest_with_a_reason(user_api, shop) -> None:
    cash = NormalVoucherFactory(shop=shop, pay_value=0, actual_value=1500)
    reduction = NormalVoucherFactory(
        shop=shop,
        pay_value=0,
        actual_value=2000,
        discount_type="full_reduction",
        amount_condition=10000,
        discount_amount=2000,
    )
    rate = NormalVoucherFactory(
        shop=shop, pay_value=0, actual_value=0, discount_type="percentage", discount_rate=88
    )
    far = NormalVoucherFactory(
        shop=shop,
        pay_value=0,
        actual_value=5000,
        discount_type="full_reduction",
        amount_condition=50000,
        discount_amount=5000,
    )
    NormalVoucherFactory(pay_value=0)  # another shop's: not listed
    ids = {v.id: _coupon(user_api, v) for v in (cash, reduction, rate, far)}
    _coupon(user_api, NormalVoucherFactory(pay_value=0))

    body = user_api.get(f"/api/coupons/usable?shop_id={shop.id}&amount=12000").json()

    assert [(c["id"], c["discount"]) for c in body["usable"]] == [
        (ids[reduction.id], 2000),
        (ids[cash.id], 1500),
        (ids[rate.id], 1440),  # 12000 * 12 // 100
    ]
    assert [(c["id"], c["reason"]) for c in body["unusable"]] == [(ids[far.id], "below_threshold")]
    assert body["usable"][0]["voucher"]["discount_type"] == "full_reduction"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query", ["", "?shop_id=1", "?amount=100", "?shop_id=x&amount=1", "?shop_id=1&amount=0"]
)
def test_usable_coupons_need_a_shop_and_a_positive_amount(user_api, query) -> None:
    assert user_api.get(f"/api/coupons/usable{query}").status_code == 400


@pytest.mark.django_db
def test_usable_coupons_of_an_unknown_shop_404_and_need_login(api, user_api) -> None:
    assert user_api.get("/api/coupons/usable?shop_id=999999&amount=100").status_code == 404
    assert api.get("/api/coupons/usable?shop_id=1&amount=100").status_code == 401


@pytest.mark.django_db
def test_checkout_with_a_coupon_uses_it_and_writes_its_write_off(user, user_api, shop) -> None:
    voucher = NormalVoucherFactory(
        shop=shop,
        pay_value=0,
        actual_value=2000,
        discount_type="full_reduction",
        amount_condition=10000,
        discount_amount=2000,
    )
    coupon = _coupon(user_api, voucher)

    response = _checkout(user_api, shop, 12345, coupon)

    assert response.status_code == 201
    body = response.json()
    assert {k: body[k] for k in ("shop_id", "amount", "discount", "payable", "coupon_id")} == {
        "shop_id": shop.id,
        "amount": 12345,
        "discount": 2000,
        "payable": 10345,
        "coupon_id": coupon,
    }
    assert body["status"] == "paid"
    assert isinstance(body["id"], str)
    used = VoucherOrder.objects.get(pk=coupon)
    assert used.status == "used"
    write_off = WriteOff.objects.get()
    assert (write_off.kind, write_off.order_id, write_off.discount) == ("checkout", used.id, 2000)
    assert (write_off.shop_order_id, write_off.redeemed_by_id) == (int(body["id"]), user.id)
    assert write_off.redeemed_at == used.used_at
    listed = user_api.get("/api/voucher-orders?status=used").json()["results"]
    assert [o["id"] for o in listed] == [coupon]


@pytest.mark.django_db
def test_checkout_without_a_coupon(user_api, shop) -> None:
    response = _checkout(user_api, shop, 5000)

    assert response.status_code == 201
    assert (response.json()["discount"], response.json()["payable"]) == (0, 5000)
    assert response.json()["coupon_id"] is None
    assert not WriteOff.objects.exists()


@pytest.mark.django_db
def test_every_refusal_is_its_409_and_writes_nothing(user, user_api, other_user, shop, fake_clock):
    threshold = NormalVoucherFactory(
        shop=shop,
        pay_value=0,
        discount_type="full_reduction",
        amount_condition=10000,
        discount_amount=1000,
    )
    elsewhere = NormalVoucherFactory(pay_value=0)
    unpaid_voucher = NormalVoucherFactory(shop=shop, pay_value=100)
    short_lived = NormalVoucherFactory(shop=shop, pay_value=0, valid_days=1)
    refunded_voucher = NormalVoucherFactory(shop=shop, pay_value=0)
    used_voucher = NormalVoucherFactory(shop=shop, pay_value=0)
    below = _coupon(user_api, threshold)
    wrong = _coupon(user_api, elsewhere)
    unpaid = user_api.post(f"/api/vouchers/{unpaid_voucher.id}/claim").json()["order_id"]
    expired = _coupon(user_api, short_lived)
    refunded = _coupon(user_api, refunded_voucher)
    user_api.post(f"/api/voucher-orders/{refunded}/refund")
    used = _coupon(user_api, used_voucher)
    assert _checkout(user_api, shop, 500, used).status_code == 201
    theirs = _coupon(client_for(other_user), NormalVoucherFactory(shop=shop, pay_value=0))
    fake_clock.advance(86400 + 1)  # `expired` lapses; the others have 30 days
    before = (ShopOrder.objects.count(), WriteOff.objects.count())

    codes = {
        name: _checkout(user_api, shop, 9999, coupon).json().get("code")
        for name, coupon in [
            ("below", below),
            ("wrong", wrong),
            ("unpaid", unpaid),
            ("expired", expired),
            ("refunded", refunded),
            ("used", used),
            ("theirs", theirs),
        ]
    }

    assert codes == {
        "below": "below_threshold",
        "wrong": "wrong_shop",
        "unpaid": "coupon_unpaid",
        "expired": "coupon_expired",
        "refunded": "coupon_refunded",
        "used": "coupon_used",
        "theirs": "coupon_not_found",
    }
    assert _checkout(user_api, shop, 9999, theirs).status_code == 404
    assert (ShopOrder.objects.count(), WriteOff.objects.count()) == before
    states = {str(k): v for k, v in VoucherOrder.objects.values_list("id", "status")}
    assert states == {
        below: "paid",
        wrong: "paid",
        unpaid: "unpaid",
        expired: "paid",
        refunded: "refunded",
        used: "used",
        theirs: "paid",
    }
    assert VoucherOrder.objects.filter(used_at__isnull=False).count() == 1  # `used`'s own


@pytest.mark.django_db
@pytest.mark.parametrize(
    "body",
    [
        {"shop_id": None, "amount": 100},
        {"shop_id": 1.5, "amount": 100},
        {"amount": 100.0},
        {"amount": "100"},
        {"amount": 100, "coupon_id": 7},
        {"amount": 100, "coupon_id": "\uff11"},
        {"shop_id": "SHOP", "amount": 100},
        {"amount": 0},
        {"amount": -5},
        {"amount": 10**12},
        {"amount": 100, "coupon_id": "abc"},
        {"amount": 100, "coupon_id": "99999999999999999999"},
    ],
)
def test_bad_checkout_input_is_400(user_api, shop, body) -> None:
    response = user_api.post("/api/shop-orders", {"shop_id": shop.id, **body}, format="json")

    assert response.status_code == 400
    assert not ShopOrder.objects.exists()


@pytest.mark.django_db
def test_a_checkout_at_a_shop_that_does_not_exist_is_409(user_api) -> None:
    response = user_api.post("/api/shop-orders", {"shop_id": 999999, "amount": 100}, format="json")

    assert (response.status_code, response.json()["code"]) == (409, "shop_not_found")
    assert not ShopOrder.objects.exists()


@pytest.mark.django_db
def test_the_same_idempotency_key_returns_the_same_order(user_api, shop) -> None:
    coupon = _coupon(user_api, NormalVoucherFactory(shop=shop, pay_value=0, actual_value=500))
    key = {"HTTP_IDEMPOTENCY_KEY": "till-7-receipt-0042"}

    first = _checkout(user_api, shop, 3000, coupon, **key)
    retry = _checkout(user_api, shop, 3000, coupon, **key)

    assert first.status_code == retry.status_code == 201
    assert retry.json() == first.json()
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert (ShopOrder.objects.count(), WriteOff.objects.count()) == (1, 1)
    other = _checkout(user_api, shop, 3500, None, **key)
    assert (other.status_code, other.json()["code"]) == (409, "idempotency_key_reused")
    bad = _checkout(user_api, shop, 3000, None, HTTP_IDEMPOTENCY_KEY="x" * 65)
    assert bad.status_code == 400
    assert ShopOrder.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_concurrent_checkouts_with_one_coupon_have_one_winner(user, shop) -> None:
    client = client_for(user)
    coupon = _coupon(client, NormalVoucherFactory(shop=shop, pay_value=0, actual_value=800))
    clients = [client_for(user) for _ in range(16)]

    responses = run_concurrently(lambda i: _checkout(clients[i], shop, 5000, coupon), workers=16)

    statuses = sorted(r.status_code for r in responses)
    assert statuses == [201] + [409] * 15
    assert {r.json()["code"] for r in responses if r.status_code == 409} == {"coupon_used"}
    assert ShopOrder.objects.count() == 1
    assert WriteOff.objects.filter(order_id=int(coupon)).count() == 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("with_coupon", [False, True])
def test_concurrent_retries_with_one_key_make_one_order(user, shop, with_coupon) -> None:
    coupon = None
    if with_coupon:  # the retries also race for the coupon the first one uses
        coupon = _coupon(client_for(user), NormalVoucherFactory(shop=shop, pay_value=0))
    clients = [client_for(user) for _ in range(10)]
    key = {"HTTP_IDEMPOTENCY_KEY": "double-tap"}

    responses = run_concurrently(
        lambda i: _checkout(clients[i], shop, 700, coupon, **key), workers=10
    )

    assert {r.status_code for r in responses} == {201}
    assert len({r.json()["id"] for r in responses}) == 1
    assert ShopOrder.objects.count() == 1
    assert WriteOff.objects.count() == (1 if with_coupon else 0)


@pytest.mark.django_db(transaction=True)
def test_racing_retries_of_a_done_checkout_get_its_order_and_use_no_budget(user, shop, settings):
    throttle_rates(settings, checkout_user="2/minute")
    api = client_for(user)
    key = {"HTTP_IDEMPOTENCY_KEY": "till-3-receipt-7"}
    first = _checkout(api, shop, 1200, None, **key)
    clients = [client_for(user) for _ in range(20)]

    retries = run_concurrently(lambda i: _checkout(clients[i], shop, 1200, None, **key), 20)

    assert [r.status_code for r in retries] == [201] * 20
    assert all(r.json() == first.json() and r["Idempotent-Replayed"] == "true" for r in retries)
    assert _checkout(api, shop, 1300).status_code == 201  # the second of two
    assert _checkout(api, shop, 1400).status_code == 429
    assert ShopOrder.objects.count() == 2


@pytest.mark.django_db
def test_a_refunded_checkout_gives_its_coupon_back_to_use_again(user_api, other_user, shop) -> None:
    coupon = _coupon(user_api, NormalVoucherFactory(shop=shop, pay_value=0, actual_value=900))
    order_id = _checkout(user_api, shop, 4000, coupon).json()["id"]

    refunded = user_api.post(f"/api/shop-orders/{order_id}/refund")

    assert refunded.status_code == 200
    assert refunded.json()["status"] == "refunded"
    assert VoucherOrder.objects.get(pk=coupon).status == "paid"
    assert WriteOff.objects.get().reversed_at is not None
    assert user_api.post(f"/api/shop-orders/{order_id}/refund").json() == refunded.json()
    assert client_for(other_user).post(f"/api/shop-orders/{order_id}/refund").status_code == 404
    again = _checkout(user_api, shop, 4000, coupon)  # the coupon works again
    assert again.status_code == 201
    assert WriteOff.objects.filter(standing=True).count() == 1
    assert VoucherOrder.objects.get(pk=coupon).status == "used"


@pytest.mark.django_db
def test_a_coupon_that_lapsed_meanwhile_stays_spent(user_api, shop, fake_clock) -> None:
    coupon = _coupon(user_api, NormalVoucherFactory(shop=shop, pay_value=0, valid_days=1))
    order_id = _checkout(user_api, shop, 4000, coupon).json()["id"]
    fake_clock.advance(86400 + 1)

    assert user_api.post(f"/api/shop-orders/{order_id}/refund").status_code == 200

    assert VoucherOrder.objects.get(pk=coupon).status == "used"
    assert WriteOff.objects.get().reversed_at is not None


@pytest.mark.django_db
def test_my_shop_orders_scroll_newest_first(user_api, shop) -> None:
    made = [_checkout(user_api, shop, 100 + i).json()["id"] for i in range(12)]

    first = user_api.get("/api/shop-orders").json()
    second = user_api.get(f"/api/shop-orders?last_id={first['last_id']}").json()

    assert [o["id"] for o in first["results"] + second["results"]] == made[::-1]
    assert second["last_id"] is None
    assert user_api.get("/api/shop-orders?last_id=nope").status_code == 400


@pytest.mark.django_db
def test_checkouts_are_rate_limited_per_user(user_api, other_user, shop, settings) -> None:
    throttle_rates(settings, checkout_user="2/minute")

    statuses = [_checkout(user_api, shop, 1000).status_code for _ in range(3)]

    assert statuses == [201, 201, 429]
    assert int(_checkout(user_api, shop, 1000).headers["Retry-After"]) >= 1
    assert ShopOrder.objects.count() == 2  # the refused ones wrote nothing
    assert _checkout(client_for(other_user), shop, 1000).status_code == 201  # per user


@pytest.mark.django_db
def test_bills_need_login_and_other_people_s_bills_are_404(api, user_api, other_user, shop) -> None:
    bill = _checkout(user_api, shop, 1000).json()["id"]
    other_api = client_for(other_user)

    assert _checkout(api, shop, 1000).status_code == 401
    assert api.get("/api/shop-orders").status_code == 401
    assert api.post(f"/api/shop-orders/{bill}/refund").status_code == 401
    assert other_api.post(f"/api/shop-orders/{bill}/refund").status_code == 404
    assert user_api.post("/api/shop-orders/999999999/refund").status_code == 404
    assert other_api.get("/api/shop-orders").json()["results"] == []
    assert ShopOrder.objects.get(pk=bill).status == "paid"  # none of that touched it
