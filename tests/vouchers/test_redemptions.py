"""Redemption at the shop: staff of the voucher's shop (or site staff) use a coupon by its
code; nobody learns whether another shop's code exists; misses are rate limited."""

from __future__ import annotations

from datetime import timedelta

import pytest

from shops.models import ShopStaff
from tests.factories import NormalVoucherFactory, ShopFactory, UserFactory
from tests.helpers import client_for, throttle_rates
from toolkit import clock
from vouchers.models import VoucherOrder, WriteOff


@pytest.fixture
def shop(db):
    return ShopFactory()


@pytest.fixture
def clerk(shop):
    user = UserFactory()
    ShopStaff.objects.create(shop=shop, user=user)
    return user


@pytest.fixture
def clerk_api(clerk):
    return client_for(clerk)


def _coupon(user, voucher) -> VoucherOrder:
    order_id = client_for(user).post(f"/api/vouchers/{voucher.id}/claim").json()["order_id"]
    return VoucherOrder.objects.get(pk=order_id)


def _redeem(api, code: str | None, **extra):
    return api.post("/api/redemptions", {"code": code, **extra}, format="json")


@pytest.mark.django_db
def test_staff_of_the_shop_redeem_a_coupon(user, clerk, clerk_api, shop) -> None:
    coupon = _coupon(user, NormalVoucherFactory(shop=shop, pay_value=0, actual_value=5000))

    response = _redeem(clerk_api, coupon.redeem_code)

    assert response.status_code == 201
    body = response.json()
    assert body | {"id": 0, "redeemed_at": ""} == {
        "id": 0,
        "order_id": str(coupon.id),
        "voucher_id": coupon.voucher_id,
        "shop_id": shop.id,
        "discount": 5000,
        "redeemed_at": "",
        "redeemed_by": clerk.id,
        "kind": "redeem",
        "reversed_at": None,
    }
    coupon.refresh_from_db()
    assert coupon.status == "used"
    assert client_for(user).get(f"/api/voucher-orders/{coupon.id}").json()["status"] == "used"
    again = _redeem(clerk_api, coupon.redeem_code)
    assert (again.status_code, again.json()["code"]) == (409, "coupon_used")
    assert WriteOff.objects.count() == 1


@pytest.mark.django_db
def test_a_threshold_coupon_needs_the_bill(user, clerk_api, shop) -> None:
    voucher = NormalVoucherFactory(
        shop=shop,
        pay_value=0,
        discount_type="full_reduction",
        amount_condition=10000,
        discount_amount=2000,
    )
    coupon = _coupon(user, voucher)

    missing = _redeem(clerk_api, coupon.redeem_code)
    below = _redeem(clerk_api, coupon.redeem_code, amount=9000)
    enough = _redeem(clerk_api, coupon.redeem_code, amount=10000)

    assert (missing.status_code, missing.json()["code"]) == (400, "amount_required")
    assert (below.status_code, below.json()["code"]) == (409, "below_threshold")
    assert (enough.status_code, enough.json()["discount"]) == (201, 2000)


@pytest.mark.django_db
def test_site_staff_redeem_anywhere(user, staff_api, shop) -> None:
    coupon = _coupon(user, NormalVoucherFactory(shop=shop, pay_value=0))

    assert _redeem(staff_api, coupon.redeem_code).status_code == 201


@pytest.mark.django_db
def test_another_shops_code_and_an_unknown_code_look_the_same(user, clerk_api) -> None:
    elsewhere = _coupon(user, NormalVoucherFactory(pay_value=0))  # another shop's voucher

    theirs = _redeem(clerk_api, elsewhere.redeem_code)
    unknown = _redeem(clerk_api, "000000000000" if elsewhere.redeem_code != "0" * 12 else "1" * 12)

    assert theirs.status_code == unknown.status_code == 404
    assert theirs.json() == unknown.json()
    assert VoucherOrder.objects.get(pk=elsewhere.pk).status == "paid"


@pytest.mark.django_db
def test_people_who_work_nowhere_are_refused(user, user_api, api, shop) -> None:
    coupon = _coupon(user, NormalVoucherFactory(shop=shop, pay_value=0))

    assert _redeem(user_api, coupon.redeem_code).status_code == 403
    assert _redeem(api, coupon.redeem_code).status_code == 401
    assert VoucherOrder.objects.get(pk=coupon.pk).status == "paid"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "code", ["12345", "1234567890123", "12345678901a", "\uff11" * 12, "123456 789012"]
)
def test_malformed_codes_are_400(clerk_api, code) -> None:
    assert _redeem(clerk_api, code).status_code == 400


@pytest.mark.django_db
def test_expired_and_refunded_coupons_are_refused(user, clerk_api, shop, fake_clock) -> None:
    voucher = NormalVoucherFactory(shop=shop, pay_value=0, valid_days=1, per_user_limit=2)
    refunded = _coupon(user, voucher)
    client_for(user).post(f"/api/voucher-orders/{refunded.id}/refund")
    expired = _coupon(user, voucher)
    fake_clock.advance(86400 + 1)

    assert _redeem(clerk_api, refunded.redeem_code).json()["code"] == "coupon_refunded"
    assert _redeem(clerk_api, expired.redeem_code).json()["code"] == "coupon_expired"
    assert not WriteOff.objects.exists()


@pytest.mark.django_db
def test_misses_are_limited_per_user_and_hits_cost_nothing(user, clerk_api, shop, settings) -> None:
    throttle_rates(settings, redeem_miss_user="3/10minutes")
    voucher = NormalVoucherFactory(shop=shop, pay_value=0, per_user_limit=5)
    hits = [_coupon(user, voucher) for _ in range(5)]
    guesses = [f"{n:012d}" for n in range(3) if f"{n:012d}" not in {c.redeem_code for c in hits}]

    for coupon in hits[:4]:  # hits do not use up the budget
        assert _redeem(clerk_api, coupon.redeem_code).status_code == 201
    assert [_redeem(clerk_api, g).status_code for g in guesses[:3]] == [404] * len(guesses[:3])
    limited = _redeem(clerk_api, hits[4].redeem_code)

    assert limited.status_code == 429
    assert int(limited.headers["Retry-After"]) > 500  # the window is ten minutes
    assert VoucherOrder.objects.get(pk=hits[4].pk).status == "paid"
    other_clerk = UserFactory()
    ShopStaff.objects.create(shop=shop, user=other_clerk)
    assert _redeem(client_for(other_clerk), hits[4].redeem_code).status_code == 201  # per user


@pytest.mark.django_db
def test_a_shop_s_write_offs_of_a_day_for_its_staff(user, clerk_api, shop, fake_clock) -> None:
    voucher = NormalVoucherFactory(shop=shop, pay_value=0, per_user_limit=3)
    yesterday = _coupon(user, voucher)
    _redeem(clerk_api, yesterday.redeem_code)
    fake_clock.advance(86400)
    today = [_coupon(user, voucher) for _ in range(2)]
    for coupon in today:
        _redeem(clerk_api, coupon.redeem_code)
    date_yesterday = (clock.today() - timedelta(days=1)).isoformat()

    now = clerk_api.get(f"/api/shops/{shop.id}/redemptions").json()
    before = clerk_api.get(f"/api/shops/{shop.id}/redemptions?date={date_yesterday}").json()

    assert [w["order_id"] for w in now["results"]] == [str(c.id) for c in reversed(today)]
    assert now["count"] == 2
    assert [w["order_id"] for w in before["results"]] == [str(yesterday.id)]


@pytest.mark.django_db
def test_write_offs_are_for_the_shop_s_staff_only(user_api, staff_api, clerk_api, shop) -> None:
    other = ShopFactory()

    missing = clerk_api.get("/api/shops/999999/redemptions")
    assert (missing.status_code, missing.json()["code"]) == (404, "shop_not_found")
    # Anyone but its staff: the answer for a shop that does not exist (decision 360).
    for refused in (
        clerk_api.get(f"/api/shops/{other.id}/redemptions"),
        user_api.get(f"/api/shops/{shop.id}/redemptions"),
    ):
        assert (refused.status_code, refused.json()) == (404, missing.json())
    assert staff_api.get(f"/api/shops/{shop.id}/redemptions").status_code == 200
    assert staff_api.get("/api/shops/999999/redemptions").status_code == 404
    assert clerk_api.get(f"/api/shops/{shop.id}/redemptions?date=2026-13-01").status_code == 400


@pytest.mark.django_db
def test_operators_make_shop_staff_in_admin(admin_client, user, shop) -> None:
    newcomer = UserFactory()
    coupon = _coupon(user, NormalVoucherFactory(shop=shop, pay_value=0))
    assert _redeem(client_for(newcomer), coupon.redeem_code).status_code == 403

    added = admin_client.post(
        "/admin/shops/shopstaff/add/", {"user": newcomer.id, "shop": shop.id, "role": "clerk"}
    )

    assert added.status_code == 302
    assert _redeem(client_for(newcomer), coupon.redeem_code).status_code == 201


@pytest.mark.django_db
def test_redemptions_are_rate_limited_per_user(user, clerk_api, shop, settings) -> None:
    throttle_rates(settings, redeem_user="2/minute")
    voucher = NormalVoucherFactory(shop=shop, pay_value=0, per_user_limit=3)
    coupons = [_coupon(user, voucher) for _ in range(3)]

    statuses = [_redeem(clerk_api, c.redeem_code).status_code for c in coupons]

    assert statuses == [201, 201, 429]
    assert VoucherOrder.objects.get(pk=coupons[2].pk).status == "paid"  # refused: untouched
    assert WriteOff.objects.count() == 2


@pytest.mark.django_db
def test_a_shop_s_write_offs_need_its_staff(api, user_api, shop) -> None:
    assert api.get(f"/api/shops/{shop.id}/redemptions").status_code == 401
    assert user_api.get(f"/api/shops/{shop.id}/redemptions").status_code == 404
