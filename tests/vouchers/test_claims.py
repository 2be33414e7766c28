"""Claiming normal vouchers: free ones paid at once, priced ones unpaid; per-user limits
and stock that never oversell, even when claims race."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest

from tests.factories import NormalVoucherFactory, UserFactory
from tests.helpers import client_for, run_concurrently, throttle_rates
from tests.vouchers.sales import drain_all, start_sale
from toolkit import clock
from toolkit.redis import ids
from vouchers import sale_orders
from vouchers.coupons import claims, jobs
from vouchers.models import Voucher, VoucherOrder
from vouchers.sale import seckill, shard


def claim(client, voucher_id: int):
    return client.post(f"/api/vouchers/{voucher_id}/claim")


@pytest.mark.django_db
def test_a_free_voucher_is_paid_at_once_with_a_redeem_code(user, user_api, fake_clock) -> None:
    voucher = NormalVoucherFactory(pay_value=0, valid_days=7)

    response = claim(user_api, voucher.id)

    assert response.status_code == 201
    order = VoucherOrder.objects.get(pk=int(response.json()["order_id"]))
    assert (order.user_id, order.status, order.live_slot) == (user.id, "paid", 1)
    assert order.expires_at == order.created_at + timedelta(days=7)  # from the claim
    detail = user_api.get(f"/api/voucher-orders/{order.id}").json()
    assert detail["status"] == "paid"
    assert len(detail["redeem_code"]) == 12
    assert detail["redeem_code"].isdigit()
    assert jobs.order_jobs().pending() == 0  # nothing to time out


@pytest.mark.django_db
def test_a_priced_voucher_waits_for_payment_and_its_timeout_is_scheduled(
    user_api, fake_clock
) -> None:
    voucher = NormalVoucherFactory(pay_value=990, stock=10)

    order_id = int(claim(user_api, voucher.id).json()["order_id"])

    order = VoucherOrder.objects.get(pk=order_id)
    assert order.status == "unpaid"
    assert order.redeem_code is None
    assert user_api.get(f"/api/voucher-orders/{order_id}").json()["redeem_code"] is None
    assert Voucher.objects.get(pk=voucher.pk).stock == 9
    assert jobs.order_jobs().pending() == 1

    fake_clock.advance(15 * 60 + 1)
    assert jobs.settle_due_orders() == 1
    assert VoucherOrder.objects.get(pk=order_id).status == "cancelled"
    assert Voucher.objects.get(pk=voucher.pk).stock == 10  # the unit came back
    assert claim(user_api, voucher.id).status_code == 201  # and may be claimed again


@pytest.mark.django_db
def test_the_per_user_limit_counts_live_coupons_only(user, user_api) -> None:
    voucher = NormalVoucherFactory(pay_value=0, per_user_limit=2)
    first = claim(user_api, voucher.id).json()["order_id"]
    assert claim(user_api, voucher.id).status_code == 201

    refused = claim(user_api, voucher.id)
    assert refused.status_code == 409
    assert refused.json()["code"] == "limit_reached"
    assert VoucherOrder.objects.filter(user=user).count() == 2  # nothing written

    assert user_api.post(f"/api/voucher-orders/{first}/refund").status_code == 200
    assert claim(user_api, voucher.id).status_code == 201  # a refunded one frees its place
    slots = VoucherOrder.objects.filter(user=user, live_slot__isnull=False)
    assert Counter(slots.values_list("live_slot", flat=True)) == Counter([1, 2])


@pytest.mark.django_db
def test_a_refused_priced_claim_leaves_no_pay_timeout_behind(user_api) -> None:
    voucher = NormalVoucherFactory(pay_value=500, stock=5)
    assert claim(user_api, voucher.id).status_code == 201
    queued = jobs.order_jobs().pending()

    refused = claim(user_api, voucher.id)

    assert refused.json()["code"] == "limit_reached"
    assert jobs.order_jobs().pending() == queued == 1
    assert Voucher.objects.get(pk=voucher.pk).stock == 4  # the refused one took nothing


@pytest.mark.django_db
def test_sold_out_writes_nothing(user_api) -> None:
    voucher = NormalVoucherFactory(pay_value=0, stock=0)

    response = claim(user_api, voucher.id)

    assert (response.status_code, response.json()["code"]) == (409, "sold_out")
    assert not VoucherOrder.objects.exists()
    assert Voucher.objects.get(pk=voucher.pk).stock == 0


@pytest.mark.django_db
def test_unknown_flash_sale_withdrawn_and_anonymous(api, user_api, fake_clock) -> None:
    sale = start_sale()
    withdrawn = NormalVoucherFactory(status=Voucher.Status.VOID)

    assert claim(user_api, 999_999).status_code == 404
    assert claim(user_api, sale.id).json()["code"] == "sale_only"  # a 409: grab it instead
    assert claim(user_api, withdrawn.id).json()["code"] == "ended"
    assert claim(api, NormalVoucherFactory().id).status_code == 401
    assert not VoucherOrder.objects.exists()


@pytest.mark.django_db
def test_claims_are_rate_limited_per_user(user_api, settings) -> None:
    throttle_rates(settings, claim_user="2/minute")
    voucher = NormalVoucherFactory(pay_value=0, per_user_limit=5)

    statuses = [claim(user_api, voucher.id).status_code for _ in range(3)]

    assert statuses == [201, 201, 429]
    limited = claim(user_api, voucher.id)
    assert int(limited.headers["Retry-After"]) >= 1
    assert VoucherOrder.objects.count() == 2


@pytest.mark.django_db
def test_claimed_ids_never_collide_with_the_sale_s_ids(fake_clock) -> None:
    sale = start_sale(stock=50)
    voucher = NormalVoucherFactory(pay_value=0, per_user_limit=50)
    while shard.shard_of(voucher.id) != shard.shard_of(sale.id):  # one counter for both
        voucher = NormalVoucherFactory(pay_value=0, per_user_limit=50)
    buyers = [UserFactory() for _ in range(20)]

    sold = [seckill.voucher_seckill(user_id=b.id, voucher_id=sale.id) for b in buyers]
    claimed = [
        claims.voucher_claim(user_id=buyers[0].id, voucher_id=voucher.id).id for _ in range(20)
    ]
    drain_all()

    assert len(set(sold) | set(claimed)) == 40  # the same second, the same counter
    assert {sale_orders.shard_of_order(i) for i in claimed} == {shard.shard_of(voucher.id)}
    assert {ids.timestamp_of(i) for i in claimed} == {int(clock.now_seconds())}
    assert VoucherOrder.objects.count() == 40


@pytest.mark.django_db(transaction=True)
def test_concurrent_claims_on_the_last_units_never_oversell() -> None:
    voucher = NormalVoucherFactory(pay_value=0, stock=5)
    clients = [client_for(UserFactory()) for _ in range(24)]

    statuses = run_concurrently(lambda i: claim(clients[i], voucher.id).status_code, workers=24)

    assert statuses.count(201) == 5
    assert statuses.count(409) == 19
    live = VoucherOrder.objects.filter(voucher=voucher, live_slot__isnull=False).count()
    assert live == 5
    assert (Voucher.objects.get(pk=voucher.pk).stock or 0) + live == 5  # stock adds up


@pytest.mark.django_db(transaction=True)
def test_one_user_racing_claims_gets_exactly_the_limit() -> None:
    voucher = NormalVoucherFactory(pay_value=0, stock=100, per_user_limit=2)
    user = UserFactory()
    clients = [client_for(user) for _ in range(12)]

    statuses = run_concurrently(lambda i: claim(clients[i], voucher.id).status_code, workers=12)

    assert statuses.count(201) == 2
    assert set(statuses) == {201, 409}
    assert VoucherOrder.objects.filter(user=user).count() == 2
    assert Voucher.objects.get(pk=voucher.pk).stock == 98  # the refused ones took nothing
