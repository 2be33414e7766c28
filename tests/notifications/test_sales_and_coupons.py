"""The voucher kinds: an unpaid order cancelled by the pay timeout or its backstop (not by
its buyer), coupons about to expire, watched sales about to start; and the watch
endpoint. Beat jobs are called directly, with the clock moved on purpose."""

from __future__ import annotations

from datetime import timedelta

import pytest

from notifications import reminders, tasks
from notifications.models import Notification, SaleWatch
from tests.factories import NormalVoucherFactory, UserFactory, VoucherFactory
from tests.helpers import client_for
from tests.vouchers.sales import start_sale
from toolkit import clock
from vouchers.coupons import jobs
from vouchers.models import VoucherOrder


def _claim(api, voucher) -> int:
    response = api.post(f"/api/vouchers/{voucher.id}/claim")
    assert response.status_code == 201, response.json()
    return int(response.json()["order_id"])


def _kinds(api) -> list[tuple]:
    items = api.get("/api/notifications").json()["results"]
    return [(n["kind"], n["order_id"], n["voucher"] and n["voucher"]["id"]) for n in items]


@pytest.mark.django_db(transaction=True)  # the notification is enqueued after the commit
def test_the_pay_timeout_tells_the_buyer_and_their_own_cancel_does_not(
    user, user_api, fake_clock
) -> None:
    voucher = NormalVoucherFactory(pay_value=990, stock=10, per_user_limit=2)
    timed_out = _claim(user_api, voucher)
    cancelled = _claim(user_api, voucher)
    assert user_api.post(f"/api/voucher-orders/{cancelled}/cancel").status_code == 200

    fake_clock.advance(15 * 60 + 1)
    assert jobs.settle_due_orders() == 1

    assert _kinds(user_api) == [("order_cancelled", str(timed_out), voucher.id)]
    item = user_api.get("/api/notifications").json()["results"][0]
    assert item["actor"] is None
    assert item["voucher"]["title"] == voucher.title
    assert jobs.settle_due_orders() == 0
    assert len(_kinds(user_api)) == 1


@pytest.mark.django_db(transaction=True)
def test_the_backstop_tells_the_buyer(user, user_api, fake_clock) -> None:
    sale = start_sale(stock=5)
    voucher = NormalVoucherFactory(pay_value=990, stock=10)
    order_id = _claim(user_api, voucher)
    jobs.order_jobs().cancel(str(order_id))  # its job lost with Redis's state
    fake_clock.advance(15 * 60 + 5 * 60 + 1)

    assert jobs.cancel_overdue_orders() == 1

    assert _kinds(user_api) == [("order_cancelled", str(order_id), voucher.id)]
    assert sale.id  # the sale's shards exist: the release path ran for real


@pytest.mark.django_db(transaction=True)
def test_coupons_expiring_within_a_day_are_told_once(user, user_api, fake_clock) -> None:
    soon = NormalVoucherFactory(pay_value=0, valid_days=1)
    later = NormalVoucherFactory(pay_value=0, valid_days=2)
    used = NormalVoucherFactory(pay_value=0, valid_days=1)
    soon_order, later_order = _claim(user_api, soon), _claim(user_api, later)
    VoucherOrder.objects.filter(pk=_claim(user_api, used)).update(status="used")
    fake_clock.advance(60)

    assert tasks.remind_expiring_coupons() == 1
    assert tasks.remind_expiring_coupons() == 0  # told already
    assert _kinds(user_api) == [("coupon_expiring", str(soon_order), soon.id)]

    fake_clock.advance(24 * 60 * 60)  # `soon` has expired; `later` now expires within a day
    assert tasks.remind_expiring_coupons() == 1
    assert [k[1] for k in _kinds(user_api)] == [str(later_order), str(soon_order)]


@pytest.mark.django_db
def test_the_coupon_job_walks_its_window_in_bounded_batches(fake_clock) -> None:
    voucher = NormalVoucherFactory(pay_value=0, valid_days=1)
    owners = UserFactory.create_batch(5)
    now = clock.now()
    for i, owner in enumerate(owners):
        VoucherOrder.objects.create(
            id=1000 + i,
            user=owner,
            voucher=voucher,
            status="paid",
            created_at=now,
            expires_at=now + timedelta(hours=1),
            live_slot=1,
        )

    assert reminders.coupons_expiring_notify(batch=2, max_batches=1) == 2  # one query's worth
    assert reminders.coupons_expiring_notify(batch=2) == 3  # the rest, three batches on
    assert reminders.coupons_expiring_notify(batch=2) == 0
    assert sorted(Notification.objects.values_list("recipient_id", flat=True)) == sorted(
        o.id for o in owners
    )


@pytest.mark.django_db
def test_watchers_are_told_once_when_their_sale_is_ten_minutes_away(
    user, user_api, other_user, fake_clock
) -> None:
    sale = VoucherFactory(begin_time=clock.now() + timedelta(minutes=15))
    unwatched = VoucherFactory(begin_time=clock.now() + timedelta(minutes=15))
    assert user_api.put(f"/api/vouchers/{sale.id}/watch").json() == {"watching": True}
    assert user_api.put(f"/api/vouchers/{sale.id}/watch").json() == {"watching": True}
    client_for(other_user).put(f"/api/vouchers/{sale.id}/watch")
    client_for(other_user).delete(f"/api/vouchers/{sale.id}/watch")

    assert tasks.remind_starting_sales() == 0  # 15 minutes away
    fake_clock.advance(6 * 60)
    assert tasks.remind_starting_sales() == 1
    assert tasks.remind_starting_sales() == 0

    assert _kinds(user_api) == [("sale_starting", None, sale.id)]
    item = user_api.get("/api/notifications").json()["results"][0]
    assert item["voucher"]["begin_time"] is not None
    assert _kinds(client_for(other_user)) == []  # unwatched in time
    assert unwatched.id not in SaleWatch.objects.values_list("voucher_id", flat=True)
    # Unwatching and watching again before it starts tells nobody twice.
    user_api.delete(f"/api/vouchers/{sale.id}/watch")
    user_api.put(f"/api/vouchers/{sale.id}/watch")
    assert tasks.remind_starting_sales() == 0
    assert Notification.objects.filter(recipient=user).count() == 1


@pytest.mark.django_db
def test_a_voided_sale_tells_nobody(user, user_api, fake_clock) -> None:
    sale = VoucherFactory(begin_time=clock.now() + timedelta(minutes=5))
    user_api.put(f"/api/vouchers/{sale.id}/watch")
    sale.status = "void"
    sale.save()

    assert tasks.remind_starting_sales() == 0
    assert not Notification.objects.exists()


@pytest.mark.django_db
def test_only_a_flash_sale_not_yet_started_can_be_watched(user, user_api, fake_clock) -> None:
    normal = NormalVoucherFactory()
    started = VoucherFactory(begin_time=clock.now() - timedelta(minutes=1))
    upcoming = VoucherFactory(begin_time=clock.now() + timedelta(days=1))

    for voucher, code in ((normal, "not_a_sale"), (started, "sale_started")):
        response = user_api.put(f"/api/vouchers/{voucher.id}/watch")
        assert (response.status_code, response.json()["code"]) == (409, code)
    missing = user_api.put("/api/vouchers/424242/watch")
    assert (missing.status_code, missing.json()["code"]) == (404, "voucher_not_found")
    assert user_api.delete("/api/vouchers/424242/watch").status_code == 404
    assert not SaleWatch.objects.exists()

    assert user_api.put(f"/api/vouchers/{upcoming.id}/watch").status_code == 200
    assert user_api.get("/api/vouchers/watched").json() == {"voucher_ids": [upcoming.id]}
    assert user_api.delete(f"/api/vouchers/{upcoming.id}/watch").json() == {"watching": False}
    assert user_api.delete(f"/api/vouchers/{upcoming.id}/watch").json() == {"watching": False}
    assert user_api.get("/api/vouchers/watched").json() == {"voucher_ids": []}


@pytest.mark.django_db
def test_watching_needs_a_login(api) -> None:
    sale = VoucherFactory()
    assert api.put(f"/api/vouchers/{sale.id}/watch").status_code == 401
    assert api.delete(f"/api/vouchers/{sale.id}/watch").status_code == 401
    assert api.get("/api/vouchers/watched").status_code == 401
    assert not SaleWatch.objects.exists()
