"""Sign-in bitmaps with a controllable clock: local days, streaks across month and year
ends, gaps, idempotence, bounded reads, and the operators' per-day counts."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from signin import keys, services
from signin.buckets import BUCKETS, bucket_of
from tests.factories import UserFactory
from tests.helpers import client_for

LOCAL = ZoneInfo("Asia/Shanghai")


def _at(fake_clock, year: int, month: int, day: int, hour: int = 12, minute: int = 0) -> None:
    fake_clock.value = datetime(year, month, day, hour, minute, tzinfo=LOCAL).timestamp()


def _sign_days(user_id: int, first: date, count: int) -> None:
    for i in range(count):
        services.sign(user_id=user_id, day=first + timedelta(days=i))


@pytest.mark.django_db
def test_2359_and_0001_local_time_are_two_days_and_a_streak_across_a_month_end(
    user, user_api, fake_clock, redis_client
) -> None:
    _at(fake_clock, 2026, 3, 31, 23, 59)  # 15:59 UTC: still March 31 in Shanghai
    first = user_api.post("/api/sign").json()
    fake_clock.advance(120)  # 00:01 on April 1, local
    second = user_api.post("/api/sign").json()

    assert (first["date"], first["streak"]) == ("2026-03-31", 1)
    assert (second["date"], second["streak"], second["new"]) == ("2026-04-01", 2, True)
    assert redis_client.getbit(keys.sign_month(bucket_of(user.id), user.id, "202603"), 30) == 1
    assert redis_client.getbit(keys.sign_month(bucket_of(user.id), user.id, "202604"), 0) == 1


@pytest.mark.django_db
def test_signing_twice_is_one_bit_and_counts_once(user, user_api, fake_clock, redis_client) -> None:
    _at(fake_clock, 2026, 11, 21)

    once = user_api.post("/api/sign").json()
    twice = user_api.post("/api/sign").json()

    assert (once["new"], twice["new"], twice["streak"]) == (True, False, 1)
    assert redis_client.bitcount(keys.sign_month(bucket_of(user.id), user.id, "202611")) == 1
    bucket = keys.sign_daily_counts(bucket_of(user.id))
    assert redis_client.hget(bucket, "20261121") == b"1"


@pytest.mark.django_db
def test_a_streak_runs_across_a_year_end(user, user_api, fake_clock) -> None:
    _sign_days(user.id, date(2025, 11, 20), 50)  # Nov 20, 2025 .. Jan 8, 2026
    _at(fake_clock, 2026, 1, 8)

    streak = user_api.get("/api/sign/streak").json()
    assert (streak["streak"], streak["signed_today"]) == (50, True)


@pytest.mark.django_db
def test_an_unsigned_today_keeps_yesterdays_streak_and_a_gap_resets_it(
    user, user_api, fake_clock
) -> None:
    _sign_days(user.id, date(2026, 2, 20), 9)  # Feb 20 .. Feb 28
    _at(fake_clock, 2026, 3, 1)
    streak = user_api.get("/api/sign/streak").json()
    assert (streak["streak"], streak["signed_today"]) == (9, False)

    fake_clock.advance(24 * 3600)  # March 2: March 1 was missed
    assert user_api.get("/api/sign/streak").json()["streak"] == 0
    assert user_api.post("/api/sign").json()["streak"] == 1


@pytest.mark.django_db
def test_a_streak_stops_at_the_first_gap_in_an_earlier_month(user, fake_clock) -> None:
    _sign_days(user.id, date(2026, 1, 1), 10)
    _sign_days(user.id, date(2026, 1, 12), 60)  # Jan 12 .. Mar 12, after a gap on Jan 11

    assert services.streak(user_id=user.id, today_=date(2026, 3, 12)).days == 60


@pytest.mark.django_db
def test_streak_reads_are_bounded(user, settings) -> None:
    settings.SIGN_STREAK_MAX_MONTHS = 2
    _sign_days(user.id, date(2026, 1, 1), 90)  # Jan 1 .. Mar 31

    # Only March and February are read: the streak is capped, the work with it.
    assert services.streak(user_id=user.id, today_=date(2026, 3, 31)).days == 31 + 28


@pytest.mark.django_db
def test_month_view_and_its_bad_input(user, user_api, fake_clock) -> None:
    for day in (1, 2, 15, 30):
        services.sign(user_id=user.id, day=date(2026, 4, day))
    _at(fake_clock, 2026, 5, 3)

    april = user_api.get("/api/sign/month", {"month": "2026-04"}).json()

    assert april == {"month": "2026-04", "days": [1, 2, 15, 30], "count": 4}
    assert user_api.get("/api/sign/month").json() == {"month": "2026-05", "days": [], "count": 0}
    fullwidth_year = "\uff12\uff10\uff12\uff16-01"  # digits, but not ASCII ones
    bad_months = ("2026-13", "2026-4", "April", "2026-04-01", "0000-01", "2026-+1", "2026- 1")
    for bad in (*bad_months, fullwidth_year):
        response = user_api.get("/api/sign/month", {"month": bad})
        assert response.status_code == 400, bad
        assert "month" in response.json()["errors"]


@pytest.mark.django_db
def test_sign_needs_login(api) -> None:
    assert api.post("/api/sign").status_code == 401
    assert api.get("/api/sign/streak").status_code == 401
    assert api.get("/api/sign/month").status_code == 401


@pytest.mark.django_db
def test_operators_see_signed_users_per_day_without_a_scan(
    staff_api, user_api, fake_clock, client, staff_user
) -> None:
    _at(fake_clock, 2026, 6, 10)
    for user in UserFactory.create_batch(3):
        client_for(user).post("/api/sign")
    fake_clock.advance(24 * 3600)
    user_api.post("/api/sign")
    user_api.post("/api/sign")

    report = staff_api.get("/api/stats/sign", {"date": "2026-06-11", "days": 3}).json()

    assert report == [
        {"date": "2026-06-11", "users": 1},
        {"date": "2026-06-10", "users": 3},
        {"date": "2026-06-09", "users": 0},
    ]
    assert user_api.get("/api/stats/sign").status_code == 403
    client.force_login(staff_user)
    page = client.get("/admin/signin/report/")
    assert page.status_code == 200
    assert b"2026-06-10" in page.content
    index = client.get("/admin/").content.decode()  # found from the admin's first page
    assert '<a href="/admin/signin/report/">每日签到人数</a>' in index


def test_sign_keys_of_before_the_buckets_are_moved_into_them(redis_client) -> None:
    import importlib

    migration = importlib.import_module("signin.migrations.0001_sign_keys_in_buckets")
    redis_client.setbit("sign:{u70}:202611", 20, 1)
    new = keys.sign_month(bucket_of(70), 70, "202611")
    redis_client.setbit(new, 22, 1)  # signed after a deploy, before this
    redis_client.hset("sign:daily-counts", "20261121", 5)

    migration.forwards(None, None)
    migration.forwards(None, None)  # run again: nothing left to move

    assert redis_client.getbit(new, 20) == 1
    assert redis_client.getbit(new, 22) == 1  # kept, not overwritten
    assert not redis_client.exists(new + ":moving")
    assert not redis_client.exists("sign:{u70}:202611", "sign:daily-counts")
    assert (
        sum(
            int(redis_client.hget(keys.sign_daily_counts(b), "20261121") or 0)
            for b in range(BUCKETS)
        )
        == 5
    )
