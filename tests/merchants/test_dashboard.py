"""The merchant's dashboard (GET /api/merchant/shops/{id}/dashboard and its .csv): the
numbers on seeded data (page views through the real traffic recording, coupons, write-offs,
reviews and replies), the window's local-day edges, the CSV, and who may read it."""

from __future__ import annotations

import csv
import io
import itertools
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from blogs.models import ReviewReply, Visibility
from shops.models import ShopStaff
from tests.factories import (
    BlogFactory,
    NormalVoucherFactory,
    ShopFactory,
    UserFactory,
    VoucherFactory,
)
from tests.helpers import client_for
from traffic import visits
from vouchers.models import VoucherOrder, WriteOff

pytestmark = pytest.mark.django_db

LOCAL = ZoneInfo("Asia/Shanghai")  # the test settings' TIME_ZONE
_ids = itertools.count(1)


def _at(day: int, hour: int = 12, minute: int = 0, second: int = 0, month: int = 7) -> datetime:
    return datetime(2026, month, day, hour, minute, second, tzinfo=LOCAL)


def _order(voucher, when: datetime, *, user=None) -> VoucherOrder:
    return VoucherOrder.objects.create(
        id=next(_ids),
        user=user or UserFactory(),
        voucher=voucher,
        status="paid",
        created_at=when,
        expires_at=when + timedelta(days=30),
        live_slot=None,
    )


def _write_off(order: VoucherOrder, when: datetime, *, standing: bool = True) -> WriteOff:
    return WriteOff.objects.create(
        order=order,
        voucher=order.voucher,
        shop=order.voucher.shop,
        kind="redeem",
        discount=500,
        redeemed_at=when,
        redeemed_by=order.user,
        standing=True if standing else None,
        reversed_at=None if standing else when,
    )


def _view(api, shop_id: int, fake_clock, when: datetime, *client_ids: str) -> None:
    fake_clock.value = when.timestamp()
    for client_id in client_ids:
        assert api.get(f"/api/shops/{shop_id}", HTTP_X_CLIENT_ID=client_id).status_code == 200
    visits.flush()


@pytest.fixture
def seeded(shop, owner, api, fake_clock):
    """A week of a shop's life, seen on 10 July 2026 at noon (local)."""
    other = ShopFactory()
    _view(api, shop.id, fake_clock, _at(9), "phone-aaaa", "phone-aaaa", "phone-bbbb", "phone-cccc")
    _view(api, shop.id, fake_clock, _at(10), "phone-aaaa", "phone-dddd")
    _view(api, other.id, fake_clock, _at(10), "phone-eeee", "phone-ffff", "phone-gggg")

    normal, sale = NormalVoucherFactory(shop=shop), VoucherFactory(shop=shop)
    elsewhere = NormalVoucherFactory(shop=other)
    _order(normal, _at(3, 23, 59, 59))  # the day before the 7-day window: not counted
    _order(normal, _at(4, 0, 0, 0))  # the window's first local second
    _order(normal, _at(9, 23, 59, 59))  # 9 July, local, though 10 July is near
    _order(sale, _at(10, 0, 0, 0))
    first = _order(normal, _at(10, 10))
    second = _order(sale, _at(10, 11))
    _order(elsewhere, _at(10, 11))  # another shop's coupon
    _write_off(first, _at(10, 11))
    _write_off(second, _at(10, 11), standing=False)  # reversed: no redemption
    _write_off(_order(elsewhere, _at(9)), _at(10, 11))

    # Reviews: the week ending today averages 4.0, the one before 2.0, older ones none.
    BlogFactory(shop=shop, rating=5, created_at=_at(5), title="Lovely")
    waiting_newest = BlogFactory(shop=shop, rating=3, created_at=_at(10, 9), title="So-so")
    replied = BlogFactory(shop=shop, rating=4, created_at=_at(10, 10), title="Fine")
    ReviewReply.objects.create(review=replied, shop=shop, user=owner, text="Thanks!")
    BlogFactory(shop=shop, rating=2, created_at=_at(3), title="Slow")
    BlogFactory(shop=shop, rating=1, created_at=_at(10, 11), status=Visibility.HIDDEN)
    BlogFactory(shop=shop, rating=None, created_at=_at(10, 11), title="Just a note")
    BlogFactory(shop=other, rating=1, created_at=_at(10, 11))
    shop.rating_1, shop.rating_3, shop.rating_4, shop.rating_5 = 0, 1, 1, 2
    shop.score = 43
    shop.save()
    fake_clock.value = _at(10, 12).timestamp()
    return waiting_newest


def _row(by_day, date: str) -> dict:
    return next(day for day in by_day if day["date"] == date)


def test_the_dashboard_counts_each_local_day_of_the_window(seeded, shop, owner) -> None:
    body = client_for(owner).get(f"/api/merchant/shops/{shop.id}/dashboard").json()

    assert (body["days"], body["date_from"], body["date_to"]) == (7, "2026-07-04", "2026-07-10")
    assert body["shop"] == {"id": shop.id, "name": shop.name}
    assert [day["date"] for day in body["by_day"]] == [f"2026-07-{d:02d}" for d in range(4, 11)]
    zero = {"uv": 0, "pv": 0, "claims": 0, "sales": 0, "redemptions": 0}
    assert _row(body["by_day"], "2026-07-04") == {"date": "2026-07-04", **zero, "claims": 1}
    assert _row(body["by_day"], "2026-07-05") == {"date": "2026-07-05", **zero}
    assert _row(body["by_day"], "2026-07-09") == {
        "date": "2026-07-09",
        "uv": 3,
        "pv": 4,
        "claims": 1,
        "sales": 0,
        "redemptions": 0,
    }
    assert _row(body["by_day"], "2026-07-10") == {
        "date": "2026-07-10",
        "uv": 2,
        "pv": 2,
        "claims": 3,
        "sales": 2,
        "redemptions": 1,
    }
    # phone-aaaa came on both days: once in the window's visitors.
    assert body["totals"] == {"uv": 4, "pv": 6, "claims": 5, "sales": 2, "redemptions": 1}
    assert body["ratings"] == {"score": 43, "histogram": [0, 0, 1, 1, 2]}

    trend = body["rating_trend"]
    assert len(trend) == 8
    assert trend[-1] == {
        "week_start": "2026-07-04",
        "week_end": "2026-07-10",
        "average": 4.0,
        "reviews": 3,
    }
    assert trend[-2] == {
        "week_start": "2026-06-27",
        "week_end": "2026-07-03",
        "average": 2.0,
        "reviews": 1,
    }
    assert trend[0]["week_start"] == "2026-05-16"
    assert all(week["average"] is None and week["reviews"] == 0 for week in trend[:-2])

    assert [r["title"] for r in body["awaiting_reply"]] == ["So-so", "Lovely", "Slow"]
    assert body["awaiting_reply"][0]["id"] == seeded.id
    assert body["awaiting_reply"][0]["rating"] == 3
    assert set(body["awaiting_reply"][0]["user"]) == {"id", "nick_name", "icon"}
    assert body["awaiting_reply_count"] == 3


def test_thirty_days_reach_back_and_the_window_moves_at_local_midnight(
    seeded, shop, owner, fake_clock
) -> None:
    owner_api = client_for(owner)
    month = owner_api.get(f"/api/merchant/shops/{shop.id}/dashboard", {"days": 30}).json()
    assert (month["date_from"], month["date_to"], len(month["by_day"])) == (
        "2026-06-11",
        "2026-07-10",
        30,
    )
    assert _row(month["by_day"], "2026-07-03")["claims"] == 1
    assert month["totals"]["claims"] == 6

    fake_clock.value = _at(10, 23, 59, 59).timestamp()  # still 10 July, local
    assert owner_api.get(f"/api/merchant/shops/{shop.id}/dashboard").json()["date_to"] == (
        "2026-07-10"
    )
    fake_clock.value = _at(11, 0, 0, 0).timestamp()  # 16:00 UTC: a new local day
    week = owner_api.get(f"/api/merchant/shops/{shop.id}/dashboard").json()
    assert (week["date_from"], week["date_to"]) == ("2026-07-05", "2026-07-11")
    assert week["totals"]["claims"] == 4  # 4 July's order left the window
    assert _row(week["by_day"], "2026-07-11") == {
        "date": "2026-07-11",
        "uv": 0,
        "pv": 0,
        "claims": 0,
        "sales": 0,
        "redemptions": 0,
    }


def test_the_dashboard_costs_a_bounded_number_of_queries(seeded, shop, owner) -> None:
    owner_api = client_for(owner)
    with CaptureQueriesContext(connection) as week:
        owner_api.get(f"/api/merchant/shops/{shop.id}/dashboard", {"days": 7})
    with CaptureQueriesContext(connection) as month:
        owner_api.get(f"/api/merchant/shops/{shop.id}/dashboard", {"days": 30})
    assert len(month.captured_queries) == len(week.captured_queries) <= 8


def test_the_csv_has_one_row_a_day(seeded, shop, owner) -> None:
    response = client_for(owner).get(f"/api/merchant/shops/{shop.id}/dashboard.csv?days=7")

    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == (
        f'attachment; filename="shop-{shop.id}-2026-07-04-2026-07-10.csv"'
    )
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == ["date", "uv", "pv", "claims", "sales", "redemptions"]
    assert len(rows) == 8
    assert rows[1] == ["2026-07-04", "0", "0", "1", "0", "0"]
    assert rows[-2] == ["2026-07-09", "3", "4", "1", "0", "0"]
    assert rows[-1] == ["2026-07-10", "2", "2", "3", "2", "1"]


def test_a_clerk_reads_it_and_strangers_get_the_missing_shops_404(shop, clerk, api) -> None:
    other_owner = UserFactory()
    ShopStaff.objects.create(shop=ShopFactory(), user=other_owner, role=ShopStaff.Role.OWNER)
    url = f"/api/merchant/shops/{shop.id}/dashboard"

    assert client_for(clerk).get(url).status_code == 200
    assert client_for(clerk).get(f"{url}.csv").status_code == 200
    for stranger in (other_owner, UserFactory()):
        for path in (url, f"{url}.csv"):
            response = client_for(stranger).get(path)
            assert (response.status_code, response.json()["code"]) == (404, "shop_not_found")
    missing = client_for(clerk).get("/api/merchant/shops/424242/dashboard")
    assert (missing.status_code, missing.json()["code"]) == (404, "shop_not_found")
    assert api.get(url).status_code == 401
    assert api.get(f"{url}.csv").status_code == 401


@pytest.mark.parametrize("days", ["1", "14", "31", "0", "-7", "seven", "7.0", ""])
def test_a_window_other_than_7_or_30_days_is_refused(shop, owner, days) -> None:
    for path in ("dashboard", "dashboard.csv"):
        response = client_for(owner).get(f"/api/merchant/shops/{shop.id}/{path}", {"days": days})
        assert response.status_code == 400, (path, days)
        assert response.json()["code"] == "invalid"
