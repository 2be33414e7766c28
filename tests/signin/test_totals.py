"""Days signed this month (the month bitmap's BITCOUNT) and ever (a counter the sign
script keeps, decision 494): across a month end, once per day however often or however
concurrently signed, and recounted from the bitmaps when the counter is lost."""

from __future__ import annotations

import threading
from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest
from django.core.management import call_command

from signin import keys, services
from signin.buckets import bucket_of
from tests.factories import UserFactory
from tests.helpers import client_for

LOCAL = ZoneInfo("Asia/Shanghai")


def _at(fake_clock, year: int, month: int, day: int, hour: int = 12) -> None:
    fake_clock.value = datetime(year, month, day, hour, tzinfo=LOCAL).timestamp()


@pytest.mark.django_db
def test_the_month_count_starts_again_at_a_month_end_and_the_total_runs_on(
    user, user_api, fake_clock
) -> None:
    _at(fake_clock, 2026, 3, 31)
    last = user_api.post("/api/sign").json()
    fake_clock.advance(24 * 3600)  # April 1
    first = user_api.post("/api/sign").json()
    read = user_api.get("/api/sign/streak").json()

    assert (last["month_count"], last["total"]) == (1, 1)
    assert (first["date"], first["month_count"], first["total"]) == ("2026-04-01", 1, 2)
    assert read == {"streak": 2, "signed_today": True, "month_count": 1, "total": 2}
    assert user_api.get("/api/sign/month", {"month": "2026-03"}).json()["count"] == 1


@pytest.mark.django_db
def test_signing_again_the_same_day_counts_once(user, user_api, fake_clock) -> None:
    _at(fake_clock, 2026, 5, 20)
    services.sign(user_id=user.id, day=date(2026, 5, 2))

    once = user_api.post("/api/sign").json()
    twice = user_api.post("/api/sign").json()

    assert (once["new"], once["month_count"], once["total"]) == (True, 2, 2)
    assert (twice["new"], twice["month_count"], twice["total"]) == (False, 2, 2)


@pytest.mark.django_db(transaction=True)
def test_concurrent_sign_ins_of_one_day_count_once(fake_clock) -> None:
    user = UserFactory()
    _at(fake_clock, 2026, 7, 9)
    start = threading.Barrier(8)
    answers: list[dict] = []

    def sign() -> None:
        start.wait()
        answers.append(services.sign(user_id=user.id))

    threads = [threading.Thread(target=sign) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sum(answer["new"] for answer in answers) == 1
    assert {answer["total"] for answer in answers} == {1}
    assert services.streak(user_id=user.id, today_=date(2026, 7, 9)).total == 1


@pytest.mark.django_db
def test_a_lost_total_is_recounted_from_the_bitmaps(user, redis_client, fake_clock) -> None:
    other = UserFactory()
    for day in (date(2025, 12, 31), date(2026, 1, 1), date(2026, 1, 2)):
        services.sign(user_id=user.id, day=day)
    services.sign(user_id=other.id, day=date(2026, 1, 1))
    redis_client.delete(keys.sign_total(bucket_of(user.id), user.id))
    redis_client.set(keys.sign_total(bucket_of(other.id), other.id), 40)  # drifted
    _at(fake_clock, 2026, 1, 2)
    assert services.streak(user_id=user.id).total == 3  # a missing total: recounted at once
    assert client_for(other).get("/api/sign/streak").json()["total"] == 40  # drifted, unseen

    call_command("recount_signins")

    assert services.streak(user_id=user.id).total == 3
    assert client_for(other).get("/api/sign/streak").json()["total"] == 1
    services.sign(user_id=user.id, day=date(2026, 1, 3))  # counting goes on from there
    assert services.streak(user_id=user.id, today_=date(2026, 1, 3)).total == 4


@pytest.mark.django_db
def test_a_user_who_signed_before_totals_were_kept_gets_them_all_on_the_next_sign_in(
    user, redis_client
) -> None:
    """Totals began with decision 494: a user with months of bitmaps and no counter is not
    started at 1 but counted from the bitmaps, once; counting then goes on by one."""
    for day in (date(2024, 2, 29), date(2025, 11, 30), date(2026, 1, 1)):
        services.sign(user_id=user.id, day=day)
    redis_client.delete(keys.sign_total(bucket_of(user.id), user.id))  # as before 494

    answer = services.sign(user_id=user.id, day=date(2026, 1, 2))

    assert (answer["new"], answer["total"]) == (True, 4)
    assert services.sign(user_id=user.id, day=date(2026, 1, 3))["total"] == 5
