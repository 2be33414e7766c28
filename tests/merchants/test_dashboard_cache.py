"""The dashboard's closed days come from Redis (merchants/dashboard_cache.py): a warm read
costs the same few queries and round trips for 30 days as for 7, answers byte for byte
what the cold one did, and every write that changes a closed day (a refund of an older
bill, a sale order drained after midnight, a review edited or deleted, a write in a
day's last minute) shows at the next read; at midnight today's live row becomes a kept
one without a gap. Real Redis and database; the writes go through the API or services."""

from __future__ import annotations

import itertools
import json
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.db.models import Avg
from django.test.utils import CaptureQueriesContext

from blogs.models import Blog
from merchants import keys
from tests.factories import BlogFactory, NormalVoucherFactory, UserFactory
from tests.helpers import client_for, count_round_trips
from tests.vouchers.sales import drain_all, start_sale
from toolkit.redis.client import get_redis
from toolkit.redis.cluster import is_cluster
from traffic import visits
from vouchers.models import VoucherOrder, WriteOff
from vouchers.sale import seckill

pytestmark = pytest.mark.django_db(transaction=True)  # real commits: evictions follow them

LOCAL = ZoneInfo("Asia/Shanghai")  # the test settings' TIME_ZONE
_ids = itertools.count(1)


def _at(day: int, hour: int = 12, minute: int = 0, second: int = 0, month: int = 7) -> float:
    return datetime(2026, month, day, hour, minute, second, tzinfo=LOCAL).timestamp()


def _order(voucher, when: datetime) -> VoucherOrder:
    return VoucherOrder.objects.create(
        id=next(_ids),
        user=UserFactory(),
        voucher=voucher,
        status="paid",
        created_at=when,
        expires_at=when + timedelta(days=30),
    )


def _board(owner, shop, days: int = 7) -> dict:
    response = client_for(owner).get(f"/api/merchant/shops/{shop.id}/dashboard", {"days": days})
    assert response.status_code == 200
    return response.json()


def _day(board: dict, date: str) -> dict:
    return next(day for day in board["by_day"] if day["date"] == date)


def _week(board: dict, start: str) -> dict:
    return next(week for week in board["rating_trend"] if week["week_start"] == start)


def _kept(redis_client, shop, date: str) -> bytes | None:
    return redis_client.hget(keys.dashboard_days(shop.id), date)


@pytest.fixture
def month(shop, fake_clock):
    """A month of a shop's coupons, redemptions, reviews and visits, seen on 10 July
    2026 at noon (local); written past the services, before any dashboard was read."""
    normal, sale = NormalVoucherFactory(shop=shop), start_sale(shop=shop, stock=50)
    for back in range(0, 60, 3):
        moment = datetime.fromtimestamp(_at(10), LOCAL) - timedelta(days=back)
        coupon = _order(normal if back % 2 else sale, moment)
        if back % 4 == 0:
            WriteOff.objects.create(
                order=coupon,
                voucher=coupon.voucher,
                shop=shop,
                kind="redeem",
                discount=100,
                redeemed_at=moment + timedelta(hours=1),
                redeemed_by=coupon.user,
            )
        BlogFactory(shop=shop, rating=1 + back % 5, created_at=moment)
        fake_clock.value = moment.timestamp()
        visits.record(visits.shop_subject(shop.id), visits.Visitor(f"client:c{back % 7}"))
        visits.flush()
    fake_clock.value = _at(10)


def _cost(monkeypatch, api, url: str) -> tuple[int, int, bytes]:
    """(queries, Redis round trips, the answer's bytes) of one read."""
    trips = count_round_trips(monkeypatch)
    with CaptureQueriesContext(connection) as queries:
        response = api.get(url)
    monkeypatch.undo()
    assert response.status_code == 200
    return len(queries), len(trips), response.content


@pytest.mark.parametrize("path", ["dashboard", "dashboard.csv"])
def test_a_warm_read_costs_the_same_few_queries_and_round_trips_for_30_days_as_for_7(
    month, shop, owner, monkeypatch, path
) -> None:
    api = client_for(owner)
    url = f"/api/merchant/shops/{shop.id}/{path}?days="
    cold_week = _cost(monkeypatch, api, f"{url}7")
    cold_month = _cost(monkeypatch, api, f"{url}30")

    week = _cost(monkeypatch, api, f"{url}7")
    thirty = _cost(monkeypatch, api, f"{url}30")

    # The kept days answer byte for byte what the database did.
    assert (week[2], thirty[2]) == (cold_week[2], cold_month[2])
    if path == "dashboard":  # the month's coupons, every third day, and 20 reviews
        board = json.loads(thirty[2])
        assert (board["totals"]["claims"], board["awaiting_reply_count"]) == (10, 20)
        assert len(board["awaiting_reply"]) == 10
    else:
        assert thirty[2].count(b"\n") == 1 + 30
    # The shop; today's coupons, write-offs (and reviews) in one query; the reviews awaiting
    # a reply and how many: the same queries whatever the window, as a cold read's.
    assert week[0] == thirty[0] == cold_month[0] <= (4 if path == "dashboard" else 2)
    if not is_cluster(get_redis()):  # a Cluster counts each day's visitors apart
        # The token, then one pipeline: the kept days with the days' UV and PV.
        assert week[1] == thirty[1] <= 2
        assert cold_month[1] == thirty[1] + 1  # and the store of the days it lacked


def test_a_refund_of_yesterdays_bill_takes_its_redemption_off_that_day_at_once(
    shop, owner, fake_clock, redis_client
) -> None:
    fake_clock.value = _at(9, 19)
    buyer = client_for(UserFactory())
    voucher = NormalVoucherFactory(shop=shop, pay_value=0, actual_value=900)
    coupon = buyer.post(f"/api/vouchers/{voucher.id}/claim").json()["order_id"]
    body = {"shop_id": shop.id, "amount": 4000, "coupon_id": coupon}
    bill = buyer.post("/api/shop-orders", body, format="json").json()["id"]
    fake_clock.value = _at(10)
    assert _day(_board(owner, shop), "2026-07-09") | {"uv": 0, "pv": 0} == {
        "date": "2026-07-09",
        "uv": 0,
        "pv": 0,
        "claims": 1,
        "sales": 0,
        "redemptions": 1,
    }
    assert _kept(redis_client, shop, "2026-07-09") == b"1,0,1"

    assert buyer.post(f"/api/shop-orders/{bill}/refund").status_code == 200

    assert _kept(redis_client, shop, "2026-07-09") is None
    yesterday = _day(_board(owner, shop), "2026-07-09")
    assert (yesterday["claims"], yesterday["redemptions"]) == (1, 0)  # claimed it still was
    assert _kept(redis_client, shop, "2026-07-09") == b"1,0,0"


def test_a_sale_order_drained_after_midnight_counts_on_the_day_it_was_bought(
    shop, owner, fake_clock, redis_client
) -> None:
    fake_clock.value = _at(9, 23, 59, 30)
    sale = start_sale(shop=shop, stock=5)
    seckill.voucher_seckill(user_id=UserFactory().id, voucher_id=sale.id)
    fake_clock.value = _at(10, 0, 0, 30)  # the drain is late: 9 July closed without it
    before = _day(_board(owner, shop), "2026-07-09")
    assert (before["claims"], before["sales"]) == (0, 0)
    assert _kept(redis_client, shop, "2026-07-09") == b"0,0,0"

    assert drain_all() == 1

    after = _day(_board(owner, shop), "2026-07-09")
    assert (after["claims"], after["sales"]) == (1, 1)
    assert _day(_board(owner, shop), "2026-07-10")["claims"] == 0


def test_an_edited_or_deleted_review_changes_the_trend_at_once(shop, owner, fake_clock) -> None:
    author = client_for(UserFactory())
    fake_clock.value = _at(1)
    body = {"title": "Slow", "content": "Slow noodles", "shop_id": shop.id, "rating": 2}
    note = author.post("/api/blogs", body, format="json").json()["id"]
    fake_clock.value = _at(10)
    assert _week(_board(owner, shop), "2026-06-27") | {"week_end": ""} == {
        "week_start": "2026-06-27",
        "week_end": "",
        "average": 2.0,
        "reviews": 1,
    }

    assert author.patch(f"/api/blogs/{note}", {"rating": 5}, format="json").status_code == 200
    assert _week(_board(owner, shop), "2026-06-27")["average"] == 5.0

    assert author.delete(f"/api/blogs/{note}").status_code == 204
    gone = _week(_board(owner, shop), "2026-06-27")
    assert (gone["average"], gone["reviews"]) == (None, 0)


def test_at_midnight_todays_live_row_becomes_a_kept_one_without_a_gap(
    shop, owner, fake_clock, redis_client
) -> None:
    voucher = NormalVoucherFactory(shop=shop, pay_value=0)
    first, second = client_for(UserFactory()), client_for(UserFactory())
    fake_clock.value = _at(10, 23, 59, 58)
    assert first.post(f"/api/vouchers/{voucher.id}/claim").status_code == 201
    fake_clock.value = _at(10, 23, 59, 59)
    live = _day(_board(owner, shop), "2026-07-10")
    assert live["claims"] == 1
    assert _kept(redis_client, shop, "2026-07-10") is None  # today's is never kept

    fake_clock.value = _at(11, 0, 0, 0)
    assert second.post(f"/api/vouchers/{voucher.id}/claim").status_code == 201  # 11 July's
    board = _board(owner, shop)

    assert _day(board, "2026-07-10") == live
    assert _day(board, "2026-07-11")["claims"] == 1
    assert _kept(redis_client, shop, "2026-07-10") == b"1,0,0"
    fake_clock.value = _at(11, 0, 0, 1)
    assert _board(owner, shop)["by_day"] == board["by_day"]


def test_todays_writes_evict_nothing_and_a_days_last_minute_evicts_it_early(
    shop, owner, fake_clock, redis_client
) -> None:
    voucher = NormalVoucherFactory(shop=shop, pay_value=0)
    buyers = [client_for(UserFactory()) for _ in range(2)]
    fake_clock.value = _at(10)
    _board(owner, shop)  # 9 July kept
    assert buyers[0].post(f"/api/vouchers/{voucher.id}/claim").status_code == 201
    assert redis_client.get(keys.dashboard_version(shop.id)) is None  # no eviction: today's

    # A process whose clock runs ahead has closed 10 July and kept it, while this one,
    # still on 10 July, issues a coupon in the day's last minute: the day goes all the same.
    fake_clock.value = _at(11, 0, 0, 5)
    assert _day(_board(owner, shop), "2026-07-10")["claims"] == 1
    fake_clock.value = _at(10, 23, 59, 50)
    assert buyers[1].post(f"/api/vouchers/{voucher.id}/claim").status_code == 201
    fake_clock.value = _at(11, 0, 0, 10)

    assert _day(_board(owner, shop), "2026-07-10")["claims"] == 2


def test_a_zone_whose_midnights_are_not_on_the_hour_counts_its_days_all_the_same(
    shop, owner, fake_clock, settings
) -> None:
    settings.TIME_ZONE = "Asia/Kolkata"  # UTC+5:30: its midnights are on half hours
    kolkata = ZoneInfo("Asia/Kolkata")
    voucher = NormalVoucherFactory(shop=shop)
    for moment in [(9, 23, 59, 59), (10, 0, 0, 0), (10, 0, 29, 0), (10, 23, 0, 0)]:
        _order(voucher, datetime(2026, 7, *moment, tzinfo=kolkata))
    fake_clock.value = datetime(2026, 7, 11, 12, tzinfo=kolkata).timestamp()

    board = _board(owner, shop)

    claims = {day["date"]: day["claims"] for day in board["by_day"]}
    assert (claims["2026-07-09"], claims["2026-07-10"], claims["2026-07-11"]) == (1, 3, 0)
    assert _board(owner, shop)["by_day"] == board["by_day"]  # and kept as counted


def test_a_weeks_average_is_the_databases_avg_of_its_reviews(shop, owner, fake_clock) -> None:
    """2503 reviews of 5319 stars: 2.12504..., which MariaDB's AVG gives as 2.1250 (4
    places) and so shows as 2.12, and SQLite's as a double, shown as 2.13. The week is
    summed from kept days: its average must be what the database's AVG of them gives."""
    author = UserFactory()
    when = datetime.fromtimestamp(_at(3), LOCAL)
    Blog.objects.bulk_create(
        Blog(
            user=author,
            shop=shop,
            title=f"n{i}",
            content="x",
            created_at=when,
            rating=3 if i < 313 else 2,
        )
        for i in range(2503)
    )
    fake_clock.value = _at(10)
    database = Blog.objects.filter(shop=shop).aggregate(avg=Avg("rating"))["avg"]

    for _ in range(2):  # counted, then from the kept days
        week = _week(_board(owner, shop), "2026-06-27")
        assert (week["average"], week["reviews"]) == (round(float(database), 2), 2503)
