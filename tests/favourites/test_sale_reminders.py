"""A saved flash sale that has not started is a watched one: its start is told as a
watch's is (notifications.reminders), once; unsaving takes back only a reminder the save
set."""

from __future__ import annotations

from datetime import timedelta

import pytest

from favourites.models import Favourite
from notifications import tasks
from notifications.models import Notification, SaleWatch
from tests.factories import NormalVoucherFactory, VoucherFactory
from tests.vouchers.sales import start_sale
from toolkit import clock

pytestmark = pytest.mark.django_db


def _watching(user, voucher) -> bool:
    return SaleWatch.objects.filter(user=user, voucher=voucher).exists()


def test_a_saved_sale_s_start_is_told_once(user, user_api, fake_clock) -> None:
    sale = VoucherFactory(begin_time=clock.now() + timedelta(minutes=15))

    user_api.put(f"/api/favourites/voucher/{sale.id}")
    user_api.put(f"/api/favourites/voucher/{sale.id}")  # again: one reminder still

    assert _watching(user, sale)
    assert user_api.get("/api/vouchers/watched").json() == {"voucher_ids": [sale.id]}
    fake_clock.advance(6 * 60)
    assert tasks.remind_starting_sales() == 1
    assert tasks.remind_starting_sales() == 0
    told = Notification.objects.get(recipient=user)
    assert (told.kind, told.voucher_id) == ("sale_starting", sale.id)


def test_unsaving_takes_back_the_reminder_the_save_set(user, user_api, fake_clock) -> None:
    sale = VoucherFactory(begin_time=clock.now() + timedelta(minutes=15))
    user_api.put(f"/api/favourites/voucher/{sale.id}")

    user_api.delete(f"/api/favourites/voucher/{sale.id}")

    assert not _watching(user, sale)
    fake_clock.advance(6 * 60)
    assert tasks.remind_starting_sales() == 0


def test_a_reminder_asked_for_apart_outlives_the_favourite(user, user_api, fake_clock) -> None:
    sale = VoucherFactory(begin_time=clock.now() + timedelta(minutes=15))
    user_api.put(f"/api/vouchers/{sale.id}/watch")
    user_api.put(f"/api/favourites/voucher/{sale.id}")
    assert Favourite.objects.get(user=user).made_watch is False

    user_api.delete(f"/api/favourites/voucher/{sale.id}")

    assert _watching(user, sale)
    fake_clock.advance(6 * 60)
    assert tasks.remind_starting_sales() == 1  # told once, as a watcher


def test_a_sale_on_now_or_a_normal_voucher_is_saved_without_a_reminder(
    user, user_api, fake_clock
) -> None:
    on_now = start_sale()
    normal = NormalVoucherFactory()

    for voucher in (on_now, normal):
        assert user_api.put(f"/api/favourites/voucher/{voucher.id}").json()["saved"] is True

    assert Favourite.objects.filter(user=user).count() == 2
    assert not SaleWatch.objects.exists()
