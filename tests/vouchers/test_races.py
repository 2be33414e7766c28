"""More of the coupon's races, run with real threads on the real database (SQLite in
`make test`, MariaDB in CI's second run, where row locks and deadlocks are real): no
request fails with a 500, exactly one of two exclusive moves wins, and stock adds up
(database stock + live orders = the stock the voucher started with)."""

from __future__ import annotations

import pytest

from shops.models import ShopStaff
from tests.factories import NormalVoucherFactory, UserFactory
from tests.helpers import client_for, run_concurrently
from tests.vouchers.sales import drain_all, start_sale
from vouchers.models import ShopOrder, Voucher, VoucherOrder, WriteOff
from vouchers.sale import seckill, shard

pytestmark = pytest.mark.django_db(transaction=True)


def _stock_adds_up(voucher: Voucher, initial: int) -> None:
    live = VoucherOrder.objects.filter(voucher=voucher, live_slot__isnull=False).count()
    assert (Voucher.objects.get(pk=voucher.pk).stock or 0) + live == initial


def test_claims_racing_cancels_of_the_same_user() -> None:
    voucher = NormalVoucherFactory(pay_value=100, stock=50)
    users = [UserFactory() for _ in range(6)]
    apis = [client_for(u) for u in users]
    held = [apis[i].post(f"/api/vouchers/{voucher.id}/claim").json()["order_id"] for i in range(6)]

    def race(i: int) -> int:
        n = i // 2
        if i % 2:  # the user claims again while their unpaid one is being cancelled
            return apis[n].post(f"/api/vouchers/{voucher.id}/claim").status_code
        return apis[n].post(f"/api/voucher-orders/{held[n]}/cancel").status_code

    statuses = run_concurrently(race, workers=12)

    assert set(statuses) <= {200, 201, 409}  # never a 500, deadlock or not
    assert statuses[0::2] == [200] * 6  # every cancel went through
    assert VoucherOrder.objects.filter(status="cancelled").count() == 6
    _stock_adds_up(voucher, 50)


def test_refunds_racing_the_drain_of_the_same_sale(redis_client, fake_clock) -> None:
    sale = start_sale(stock=100)
    paid = [UserFactory() for _ in range(8)]
    orders = []
    for buyer in paid:
        order_id = seckill.voucher_seckill(user_id=buyer.id, voucher_id=sale.id)
        drain_all()
        client_for(buyer).post(f"/api/voucher-orders/{order_id}/pay")
        orders.append(order_id)
    late = [UserFactory() for _ in range(40)]
    for buyer in late:  # accepted, not yet in the database
        seckill.voucher_seckill(user_id=buyer.id, voucher_id=sale.id)
    apis = [client_for(b) for b in paid]

    def race(i: int) -> object:
        if i < 8:
            return apis[i].post(f"/api/voucher-orders/{orders[i]}/refund").status_code
        return drain_all()

    outcome = run_concurrently(race, workers=10)
    drain_all()

    assert outcome[:8] == [200] * 8
    assert VoucherOrder.objects.filter(voucher=sale).count() == 48
    _stock_adds_up(sale, 100)
    assert redis_client.get(shard.stock_key(sale.id)) == str(100 - 40).encode()


def test_a_coupon_refund_racing_a_checkout_with_it(user) -> None:
    voucher = NormalVoucherFactory(pay_value=0, stock=10, per_user_limit=8)
    api = client_for(user)
    coupons = [api.post(f"/api/vouchers/{voucher.id}/claim").json()["order_id"] for _ in range(8)]
    apis = [client_for(user) for _ in range(16)]

    def race(i: int) -> tuple[str, int]:
        coupon = coupons[i // 2]
        if i % 2:
            return "refund", apis[i].post(f"/api/voucher-orders/{coupon}/refund").status_code
        body = {"shop_id": voucher.shop_id, "amount": 9000, "coupon_id": coupon}
        return "checkout", apis[i].post("/api/shop-orders", body, format="json").status_code

    outcome = run_concurrently(race, workers=16)

    for n in range(8):
        pair = {outcome[2 * n], outcome[2 * n + 1]}
        assert pair in ({("checkout", 201), ("refund", 409)}, {("checkout", 409), ("refund", 200)})
    used = VoucherOrder.objects.filter(voucher=voucher, status="used").count()
    assert used == ShopOrder.objects.filter(coupon__isnull=False).count()
    assert WriteOff.objects.filter(standing=True).count() == used
    _stock_adds_up(voucher, 10)


def test_a_bill_refund_racing_a_redemption_of_its_coupon(user) -> None:
    voucher = NormalVoucherFactory(pay_value=0, per_user_limit=6, actual_value=300)
    clerk = UserFactory()
    ShopStaff.objects.create(shop=voucher.shop, user=clerk)
    api = client_for(user)
    coupons, bills = [], []
    for _ in range(6):
        coupon = api.post(f"/api/vouchers/{voucher.id}/claim").json()["order_id"]
        body = {"shop_id": voucher.shop_id, "amount": 1000, "coupon_id": coupon}
        bills.append(api.post("/api/shop-orders", body, format="json").json()["id"])
        coupons.append(VoucherOrder.objects.get(pk=coupon))
    clerks, owners = [client_for(clerk) for _ in range(6)], [client_for(user) for _ in range(6)]

    def race(i: int) -> int:
        n = i // 2
        if i % 2:
            body = {"code": coupons[n].redeem_code}
            return clerks[n].post("/api/redemptions", body, format="json").status_code
        return owners[n].post(f"/api/shop-orders/{bills[n]}/refund").status_code

    statuses = run_concurrently(race, workers=12)

    assert statuses[0::2] == [200] * 6  # every bill refunded
    assert set(statuses[1::2]) <= {201, 409}  # redeemed if the coupon came back first
    for coupon in coupons:
        coupon.refresh_from_db()
        standing = WriteOff.objects.filter(order=coupon, standing=True)
        # A used coupon has exactly one standing write-off; a paid one has none.
        assert standing.count() == (1 if coupon.status == "used" else 0)
        assert coupon.status in ("used", "paid")
