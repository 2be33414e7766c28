"""UV (HyperLogLog) and PV statistics: accuracy at 100,000 visitors, repeats, the
multi-day merge, and who may read them."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from tests.factories import ShopFactory
from traffic import visits

LOCAL = ZoneInfo("Asia/Shanghai")


def _on(fake_clock, day: int) -> None:
    fake_clock.value = datetime(2026, 7, day, 12, tzinfo=LOCAL).timestamp()


def _visit(subject: str, visitors) -> None:
    for visitor in visitors:
        visits.record(subject, visits.Visitor(visitor))  # each as if from its own address
    visits.flush()


@pytest.mark.django_db
def test_100k_visitors_within_one_percent_and_repeats_do_not_count(staff_api, fake_clock) -> None:
    _on(fake_clock, 1)
    shop = visits.shop_subject(1)
    _visit(shop, (f"client:{i}" for i in range(100_000)))
    _visit(shop, (f"client:{i}" for i in range(0, 100_000, 10)))  # 10,000 come back

    body = staff_api.get("/api/stats/uv", {"date": "2026-07-01"}).json()

    assert abs(body["uv"] - 100_000) <= 1_000  # the site-wide log counts every shop's views
    assert body["pv"] == 110_000
    assert (body["date_from"], body["date_to"], body["days"]) == ("2026-07-01", "2026-07-01", 1)


@pytest.mark.django_db
def test_a_seven_day_window_merges_visitors_seen_on_several_days(staff_api, fake_clock) -> None:
    shop, other = ShopFactory(), ShopFactory()
    for day in range(1, 8):
        _on(fake_clock, day)
        # 100 regulars every day, plus 50 new faces a day, plus views of another shop.
        _visit(visits.shop_subject(shop.id), [f"user:{i}" for i in range(100)])
        _visit(visits.shop_subject(shop.id), [f"client:d{day}-{i}" for i in range(50)])
        _visit(visits.shop_subject(other.id), [f"client:elsewhere-{i}" for i in range(30)])

    week = staff_api.get(
        "/api/stats/uv", {"date": "2026-07-07", "days": 7, "shop_id": shop.id}
    ).json()

    assert abs(week["uv"] - (100 + 7 * 50)) <= 5  # regulars count once across the week
    assert week["pv"] == 7 * 150
    assert [d["date"] for d in week["by_day"]] == [f"2026-07-0{d}" for d in range(1, 8)]
    assert all(abs(d["uv"] - 150) <= 2 and d["pv"] == 150 for d in week["by_day"])
    site = staff_api.get("/api/stats/uv", {"date": "2026-07-07", "days": 7}).json()
    assert abs(site["uv"] - (100 + 7 * 50 + 30)) <= 5  # the same 30 visit the other shop daily


@pytest.mark.django_db
def test_only_staff_and_only_sane_windows(api, user_api, staff_api) -> None:
    assert api.get("/api/stats/uv").status_code == 401
    assert user_api.get("/api/stats/uv").status_code == 403
    assert staff_api.get("/api/stats/uv").status_code == 200
    for params in (
        {"date": "2026-02-30"},
        {"date": "yesterday"},
        {"days": "0"},
        {"days": "93"},
        {"shop_id": "abc"},
        {"date": "2026-W47-6"},
        {"date": "0001-01-01", "days": 2},
        {"date": "20261121"},
    ):
        assert staff_api.get("/api/stats/uv", params).status_code == 400, params
    assert staff_api.get("/api/stats/uv", {"shop_id": 424242}).status_code == 404
