"""A coupon's life after it is taken: pay, cancel, refund, validity, each exactly once
even when two of them race (a cancel and the pay timeout, a refund and a redemption)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from shops.models import ShopStaff
from tests.factories import NormalVoucherFactory, UserFactory
from tests.helpers import client_for, run_concurrently
from tests.vouchers.sales import drain_all, start_sale
from vouchers.coupons import jobs
from vouchers.coupons import services as coupon_services
from vouchers.models import Voucher, VoucherOrder, WriteOff
from vouchers.sale import seckill, shard


def _grab(user, sale) -> int:
    order_id = seckill.voucher_seckill(user_id=user.id, voucher_id=sale.id)
    drain_all()
    return order_id


def _buyers(redis_client, sale) -> dict[bytes, bytes]:
    return redis_client.hgetall(shard.buyers_key(sale.id))


@pytest.mark.django_db(transaction=True)  # the release runs after the cancel's commit
def test_an_unpaid_order_whose_job_redis_lost_is_cancelled_by_the_backstop(
    user, other_user, redis_client, fake_clock
) -> None:
    """Issue 23: a pay-timeout job lost with Redis's last writes left the order payable
    forever. The backstop cancels what is unpaid past the timeout and its grace, as the
    job would have, and nothing younger."""
    sale = start_sale(stock=10)
    lost = _grab(user, sale)
    fake_clock.advance(10 * 60)
    young = _grab(other_user, sale)
    for order_id in (lost, young):
        jobs.order_jobs().cancel(str(order_id))  # what a Redis rollback does to them
    fake_clock.advance(15 * 60 + 5 * 60 - 10 * 60 + 1)  # `lost` is past timeout and grace
    mine = client_for(user)
    unpaid_tab = "/api/voucher-orders?status=unpaid"
    assert [o["id"] for o in mine.get(unpaid_tab).json()["results"]] == [str(lost)]  # cached

    assert jobs.cancel_overdue_orders() == 1
    assert mine.get(unpaid_tab).json()["results"] == []  # the cached tab was evicted
    assert VoucherOrder.objects.get(pk=lost).status == "cancelled"
    assert VoucherOrder.objects.get(pk=young).status == "unpaid"
    assert Voucher.objects.get(pk=sale.pk).stock == 9  # the unit back, once
    assert redis_client.get(shard.stock_key(sale.id)) == b"9"
    assert _buyers(redis_client, sale).keys() == {str(other_user.id).encode()}
    assert jobs.cancel_overdue_orders() == 0
    assert seckill.voucher_seckill(user_id=user.id, voucher_id=sale.id)  # may buy again
    assert jobs.order_jobs().pending() == 0  # the release's retry job went with it


@pytest.mark.django_db(transaction=True)
def test_the_backstop_racing_buyers_cancels_returns_each_unit_once(redis_client, fake_clock):
    """Orders whose jobs were lost, each cancelled by its buyer while the backstop (twice
    at once: two beats, or a slow run overlapping the next) cancels them too."""
    sale = start_sale(stock=20)
    buyers = [UserFactory() for _ in range(6)]
    orders = [_grab(b, sale) for b in buyers]
    for order_id in orders:
        jobs.order_jobs().cancel(str(order_id))
    fake_clock.advance(15 * 60 + 5 * 60 + 1)

    def race(i: int) -> object:
        if i >= len(buyers):
            return jobs.cancel_overdue_orders()
        return coupon_services.order_cancel(order_id=orders[i], user_id=buyers[i].id)

    run_concurrently(race, workers=len(buyers) + 2)

    assert VoucherOrder.objects.filter(status="cancelled").count() == 6
    assert Voucher.objects.get(pk=sale.pk).stock == 20  # each unit back exactly once
    assert redis_client.get(shard.stock_key(sale.id)) == b"20"
    assert _buyers(redis_client, sale) == {}
    assert jobs.order_jobs().pending() == 0  # no release left to retry, none leaked


@pytest.mark.django_db(transaction=True)
def test_the_backstop_leaves_an_order_stored_late_its_whole_pay_window(
    user, redis_client, fake_clock
) -> None:
    """An order the drain stored long after the grab (the database was down) has its
    job, due a full timeout after it was stored: the backstop must not cut it short."""
    sale = start_sale(stock=10)
    seckill.voucher_seckill(user_id=user.id, voucher_id=sale.id)
    fake_clock.advance(30 * 60)  # the drain could not store it for half an hour
    drain_all()
    order = VoucherOrder.objects.get(voucher=sale)

    assert jobs.cancel_overdue_orders() == 0
    assert VoucherOrder.objects.get(pk=order.pk).status == "unpaid"
    assert jobs.order_jobs().queued([str(order.pk)]) == {str(order.pk)}


@pytest.mark.django_db
def test_validity_is_counted_from_the_grab(user, fake_clock) -> None:
    sale = start_sale(stock=5, valid_days=3)
    order_id = _grab(user, sale)
    order = VoucherOrder.objects.get(pk=order_id)

    assert order.expires_at == order.created_at + timedelta(days=3)
    fake_clock.advance(600)
    coupon_services.order_pay(order_id=order_id, user_id=user.id)
    assert VoucherOrder.objects.get(pk=order_id).expires_at == order.expires_at  # not moved


@pytest.mark.django_db
def test_paying_gives_a_redeem_code_only_the_owner_sees(user, user_api, other_user) -> None:
    voucher = NormalVoucherFactory(pay_value=500)
    order_id = user_api.post(f"/api/vouchers/{voucher.id}/claim").json()["order_id"]

    paid = user_api.post(f"/api/voucher-orders/{order_id}/pay").json()

    assert paid["status"] == "paid"
    assert paid["redeem_code"] == VoucherOrder.objects.get(pk=order_id).redeem_code
    assert user_api.post(f"/api/voucher-orders/{order_id}/pay").json() == paid  # idempotent
    assert client_for(other_user).get(f"/api/voucher-orders/{order_id}").status_code == 404
    mine = user_api.get("/api/voucher-orders?status=unused").json()["results"]
    assert "redeem_code" not in mine[0]  # lists never carry it


@pytest.mark.django_db
def test_a_paid_coupon_past_its_validity_shows_as_expired_and_cannot_be_paid(
    user, user_api, fake_clock
) -> None:
    paid_one = NormalVoucherFactory(pay_value=0, valid_days=1)
    unpaid_one = NormalVoucherFactory(pay_value=100, valid_days=1)
    paid_id = user_api.post(f"/api/vouchers/{paid_one.id}/claim").json()["order_id"]
    unpaid_id = user_api.post(f"/api/vouchers/{unpaid_one.id}/claim").json()["order_id"]
    jobs.order_jobs().cancel(unpaid_id)  # let it outlive its pay timeout

    fake_clock.advance(86400 + 1)

    assert user_api.get(f"/api/voucher-orders/{paid_id}").json()["status"] == "expired"
    assert user_api.get(f"/api/voucher-orders/{paid_id}").json()["redeem_code"]
    refused = user_api.post(f"/api/voucher-orders/{unpaid_id}/pay")
    assert (refused.status_code, refused.json()["code"]) == (409, "coupon_expired")
    assert VoucherOrder.objects.get(pk=unpaid_id).status == "unpaid"


@pytest.mark.django_db(transaction=True)  # the cancel's after-commit release runs
def test_the_buyer_cancels_and_the_unit_goes_back_once(user, user_api, redis_client, fake_clock):
    sale = start_sale(stock=10)
    order_id = _grab(user, sale)

    first = user_api.post(f"/api/voucher-orders/{order_id}/cancel")
    again = user_api.post(f"/api/voucher-orders/{order_id}/cancel")

    assert first.status_code == again.status_code == 200
    assert first.json()["status"] == "cancelled"
    assert Voucher.objects.get(pk=sale.pk).stock == 10
    assert redis_client.get(shard.stock_key(sale.id)) == b"10"
    assert _buyers(redis_client, sale) == {}
    fake_clock.advance(15 * 60 + 1)
    assert jobs.settle_due_orders() == 0  # the timeout finds nothing more to do
    assert redis_client.get(shard.stock_key(sale.id)) == b"10"
    assert jobs.order_jobs().pending() == 0
    assert seckill.voucher_seckill(user_id=user.id, voucher_id=sale.id)  # may buy again


@pytest.mark.django_db
def test_wrong_state_moves_are_409_and_change_nothing(user, user_api, other_user) -> None:
    voucher = NormalVoucherFactory(pay_value=100, stock=10)
    order_id = user_api.post(f"/api/vouchers/{voucher.id}/claim").json()["order_id"]

    refund_unpaid = user_api.post(f"/api/voucher-orders/{order_id}/refund")
    user_api.post(f"/api/voucher-orders/{order_id}/pay")
    cancel_paid = user_api.post(f"/api/voucher-orders/{order_id}/cancel")
    others = client_for(other_user).post(f"/api/voucher-orders/{order_id}/refund")

    assert (refund_unpaid.status_code, refund_unpaid.json()["code"]) == (409, "order_unpaid")
    assert (cancel_paid.status_code, cancel_paid.json()["code"]) == (409, "order_paid")
    assert others.status_code == 404
    order = VoucherOrder.objects.get(pk=order_id)
    assert (order.status, order.live_slot, order.cancelled_at, order.refunded_at) == (
        "paid",
        1,
        None,
        None,
    )
    assert Voucher.objects.get(pk=voucher.pk).stock == 9  # the one unit it took


@pytest.mark.django_db(transaction=True)
def test_a_refund_while_the_sale_is_on_returns_the_unit(user, user_api, redis_client, fake_clock):
    sale = start_sale(stock=10)
    order_id = _grab(user, sale)
    user_api.post(f"/api/voucher-orders/{order_id}/pay")

    refunded = user_api.post(f"/api/voucher-orders/{order_id}/refund")

    assert refunded.json()["status"] == "refunded"
    assert refunded.json()["redeem_code"] is None
    assert user_api.post(f"/api/voucher-orders/{order_id}/refund").status_code == 200
    assert Voucher.objects.get(pk=sale.pk).stock == 10
    assert redis_client.get(shard.stock_key(sale.id)) == b"10"
    assert _buyers(redis_client, sale) == {}
    again = seckill.voucher_seckill(user_id=user.id, voucher_id=sale.id)  # a returned unit
    drain_all()
    assert VoucherOrder.objects.get(pk=again).status == "unpaid"
    assert Voucher.objects.get(pk=sale.pk).stock == 9


@pytest.mark.django_db(transaction=True)
def test_a_refund_after_the_sale_ended_keeps_the_unit_sold(
    user, user_api, redis_client, fake_clock
):
    sale = start_sale(stock=10, valid_days=30)
    order_id = _grab(user, sale)
    user_api.post(f"/api/voucher-orders/{order_id}/pay")
    fake_clock.advance(3 * 3600)  # the two-hour sale is over

    assert user_api.post(f"/api/voucher-orders/{order_id}/refund").status_code == 200

    assert Voucher.objects.get(pk=sale.pk).stock == 9
    assert redis_client.get(shard.stock_key(sale.id)) == b"9"
    assert _buyers(redis_client, sale) == {}  # freed, so reconcile counts no stray buyer
    assert jobs.order_jobs().pending() == 0


@pytest.mark.django_db
def test_used_and_expired_coupons_cannot_be_refunded(user, user_api, fake_clock) -> None:
    voucher = NormalVoucherFactory(pay_value=0, valid_days=1, per_user_limit=2, stock=10)
    used_id = user_api.post(f"/api/vouchers/{voucher.id}/claim").json()["order_id"]
    expired_id = user_api.post(f"/api/vouchers/{voucher.id}/claim").json()["order_id"]
    clerk = UserFactory()
    ShopStaff.objects.create(shop=voucher.shop, user=clerk)
    code = VoucherOrder.objects.get(pk=used_id).redeem_code
    redeemed = client_for(clerk).post("/api/redemptions", {"code": code}, format="json")
    assert redeemed.status_code == 201
    fake_clock.advance(86400 + 1)
    queued = jobs.order_jobs().pending()

    used = user_api.post(f"/api/voucher-orders/{used_id}/refund")
    expired = user_api.post(f"/api/voucher-orders/{expired_id}/refund")

    assert (used.status_code, used.json()["code"]) == (409, "coupon_used")
    assert (expired.status_code, expired.json()["code"]) == (409, "coupon_expired")
    assert list(VoucherOrder.objects.order_by("id").values_list("status", "live_slot")) == [
        ("used", 1),
        ("paid", 2),
    ]
    assert Voucher.objects.get(pk=voucher.pk).stock == 8  # no unit came back
    assert jobs.order_jobs().pending() == queued
    assert WriteOff.objects.get().reversed_at is None


@pytest.mark.django_db(transaction=True)
def test_a_cancel_racing_the_pay_timeout_returns_one_unit(redis_client, fake_clock) -> None:
    sale = start_sale(stock=20)
    buyers = [UserFactory() for _ in range(8)]
    orders = [_grab(b, sale) for b in buyers]
    fake_clock.advance(15 * 60 + 1)  # every timeout is due

    def race(i: int) -> object:
        # Even workers cancel as the buyers, odd ones run the pay timeout, all at once.
        if i % 2:
            return jobs.settle_due_orders()
        buyer = i // 2
        return coupon_services.order_cancel(order_id=orders[buyer], user_id=buyers[buyer].id)

    run_concurrently(race, workers=16)
    jobs.settle_due_orders()  # whatever the racing timeouts left leased

    assert VoucherOrder.objects.filter(status="cancelled").count() == 8
    assert Voucher.objects.get(pk=sale.pk).stock == 20  # each unit back exactly once
    assert redis_client.get(shard.stock_key(sale.id)) == b"20"
    assert _buyers(redis_client, sale) == {}


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("move", ["cancel", "refund"])
def test_retries_racing_each_other_return_the_unit_once(move, redis_client, fake_clock) -> None:
    """A client that retries before its first answer came: several identical cancels (or
    refunds) of one order at once all answer 200, and one unit goes back, not several."""
    sale = start_sale(stock=10)
    buyer = UserFactory()
    order_id = _grab(buyer, sale)
    if move == "refund":
        coupon_services.order_pay(order_id=order_id, user_id=buyer.id)
    apis = [client_for(buyer) for _ in range(8)]

    statuses = run_concurrently(
        lambda i: apis[i].post(f"/api/voucher-orders/{order_id}/{move}").status_code, workers=8
    )

    assert statuses == [200] * 8
    expected = "cancelled" if move == "cancel" else "refunded"
    assert VoucherOrder.objects.get(pk=order_id).status == expected
    assert Voucher.objects.get(pk=sale.pk).stock == 10  # one unit back, never two
    assert redis_client.get(shard.stock_key(sale.id)) == b"10"
    assert _buyers(redis_client, sale) == {}


@pytest.mark.django_db(transaction=True)
def test_a_refund_racing_a_redemption_has_one_winner(redis_client, fake_clock) -> None:
    sale = start_sale(stock=30)
    clerk = UserFactory()
    ShopStaff.objects.create(shop=sale.shop, user=clerk)
    clerk_api = client_for(clerk)
    buyers = [UserFactory() for _ in range(10)]
    orders = [_grab(b, sale) for b in buyers]
    for buyer, order_id in zip(buyers, orders, strict=True):
        coupon_services.order_pay(order_id=order_id, user_id=buyer.id)
    codes = dict(VoucherOrder.objects.values_list("id", "redeem_code"))
    buyer_apis = [client_for(b) for b in buyers]

    def race(i: int) -> tuple[str, int]:
        n = i // 2
        if i % 2:
            response = clerk_api.post("/api/redemptions", {"code": codes[orders[n]]}, format="json")
            return "redeem", response.status_code
        return "refund", buyer_apis[n].post(f"/api/voucher-orders/{orders[n]}/refund").status_code

    outcomes = run_concurrently(race, workers=20)

    for n in range(10):
        pair = {outcomes[2 * n], outcomes[2 * n + 1]}
        assert pair in ({("redeem", 201), ("refund", 409)}, {("redeem", 409), ("refund", 200)})
    used = VoucherOrder.objects.filter(status="used").count()
    refunded = VoucherOrder.objects.filter(status="refunded").count()
    assert used + refunded == 10
    assert WriteOff.objects.count() == used
    live = VoucherOrder.objects.filter(voucher=sale, live_slot__isnull=False).count()
    assert (Voucher.objects.get(pk=sale.pk).stock or 0) + live == 30  # refunded units went back
    assert int(redis_client.get(shard.stock_key(sale.id))) == 30 - live


@pytest.mark.django_db
def test_a_free_flash_sale_coupon_is_paid_as_it_lands(user, user_api, fake_clock) -> None:
    sale = start_sale(stock=5, pay_value=0)

    order_id = _grab(user, sale)

    detail = user_api.get(f"/api/voucher-orders/{order_id}").json()
    assert detail["status"] == "paid"
    assert len(detail["redeem_code"]) == 12
    assert jobs.order_jobs().pending() == 0  # nothing to pay, so no pay timeout
