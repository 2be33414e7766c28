"""Admission before Redis (decision 301): each process lets SECKILL_ADMISSION_RATE grabs a
second per voucher through to the sale script, after a burst, and answers the rest 429
from memory. Real concurrent requests on the real endpoint; Redis's own command counts
prove that a refused grab never reached it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from rest_framework.test import APIClient

from accounts import tokens
from accounts.services import users_ensure
from tests.factories import UserFactory
from tests.helpers import client_for, command_calls, reset_command_stats, run_concurrently
from tests.metrics import scrape, value
from tests.vouchers.sales import start_sale
from toolkit.errors import RateLimited
from vouchers import keys
from vouchers.sale import seckill, shard, window

SALE_TOTAL = "dianping_seckill_requests_total"
ROOT = Path(__file__).resolve().parents[2]


def _buy(client, voucher_id: int):
    return client.post(f"/api/vouchers/{voucher_id}/seckill")


def _clients(count: int) -> list[APIClient]:
    """Signed-in clients of `count` different users (no funnel or duplicate in the way)."""
    users = users_ensure(phones=[f"137{i:08d}" for i in range(count)])
    clients = []
    for token in tokens.tokens_issue(users):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
        clients.append(client)
    return clients


@pytest.mark.django_db(transaction=True)
def test_a_crowd_gets_the_burst_through_and_the_rest_429_without_touching_redis(
    settings, fake_clock, redis_client, client
) -> None:
    settings.SECKILL_ADMISSION_RATE = 1.0
    settings.SECKILL_ADMISSION_BURST = 5
    sale = start_sale(stock=100)
    crowd = _clients(60)
    before = scrape(client)  # counters are the process's: a reused voucher id has some

    def count(samples, verdict: str) -> float:
        return value(samples, SALE_TOTAL, voucher=str(sale.id), verdict=verdict)

    responses = run_concurrently(lambda i: _buy(crowd[i], sale.id), workers=40)

    statuses = [r.status_code for r in responses]
    assert statuses.count(200) == 5  # the clock stands still: the burst, no refill
    assert statuses.count(429) == 35
    for refused in (r for r in responses if r.status_code == 429):
        assert refused["Retry-After"] == "1"  # a token a second
        assert refused.json() == {"detail": "系统繁忙，请重试。", "code": "throttled"}
    assert redis_client.get(shard.stock_key(sale.id)) == b"95"
    assert redis_client.hlen(shard.buyers_key(sale.id)) == 5
    assert redis_client.xlen(keys.seckill_orders(shard.shard_of(sale.id))) == 5

    # More of the crowd, each on a thread of its own: not one command reaches Redis (the
    # window's copy in the process refreshed first: it lives 5 s, as in a running sale).
    window.sale_window(sale.id)
    reset_command_stats(redis_client)
    late = run_concurrently(lambda i: _buy(crowd[40 + i], sale.id).status_code, workers=20)
    assert late == [429] * 20
    assert command_calls(redis_client) == {}
    assert redis_client.get(shard.stock_key(sale.id)) == b"95"

    after = scrape(client)
    assert count(after, "not_admitted") - count(before, "not_admitted") == 55
    assert count(after, "accepted") - count(before, "accepted") == 5


@pytest.mark.django_db
def test_the_bucket_refills_at_the_rate_up_to_the_burst(settings, fake_clock) -> None:
    settings.SECKILL_ADMISSION_RATE = 2.0
    settings.SECKILL_ADMISSION_BURST = 2
    sale = start_sale(stock=100)
    crowd = iter(_clients(12))

    def statuses(count: int) -> list[int]:
        return [_buy(next(crowd), sale.id).status_code for _ in range(count)]

    assert statuses(3) == [200, 200, 429]
    fake_clock.advance(0.25)  # half a token
    assert statuses(1) == [429]
    fake_clock.advance(0.25)
    assert statuses(2) == [200, 429]
    fake_clock.advance(60)  # a quiet minute fills the bucket to the burst, no more
    assert statuses(3) == [200, 200, 429]


@pytest.mark.django_db
def test_retry_after_says_when_the_next_grab_is_admitted(settings, fake_clock) -> None:
    settings.SECKILL_ADMISSION_RATE = 0.2  # a grab every 5 s; the burst defaults to 1
    settings.SECKILL_ADMISSION_BURST = 0
    sale = start_sale(stock=100)
    first, second, third = _clients(3)

    assert _buy(first, sale.id).status_code == 200
    refused = _buy(second, sale.id)
    assert (refused.status_code, refused["Retry-After"]) == (429, "5")
    fake_clock.advance(5)
    assert _buy(third, sale.id).status_code == 200


@pytest.mark.django_db
def test_answers_that_need_no_script_come_before_admission(settings, fake_clock) -> None:
    """A sold-out sale says so from the process's flag with the bucket empty (a 429 would
    send the crowd back for nothing); no token at all is 401 first. A token is read in the
    script's round trip, so a refused grab's token is not checked (decision 301)."""
    settings.SECKILL_ADMISSION_RATE = 0.001
    settings.SECKILL_ADMISSION_BURST = 2
    sale = start_sale(stock=1)
    first, second, third = _clients(3)

    assert _buy(first, sale.id).status_code == 200
    assert _buy(second, sale.id).json()["code"] == "sold_out"  # the script's: the flag is set
    assert _buy(third, sale.id).json()["code"] == "sold_out"  # the flag's, bucket empty

    other = start_sale(stock=10)
    assert _buy(APIClient(), other.id).status_code == 401
    assert [_buy(first, other.id).status_code for _ in range(2)] == [200, 409]
    stranger = APIClient()
    stranger.credentials(HTTP_AUTHORIZATION="Bearer " + "x" * 43)  # shaped like one, unknown
    assert _buy(stranger, other.id).status_code == 429


@pytest.mark.django_db
def test_each_voucher_has_its_own_bucket_and_the_service_path_shares_it(
    settings, fake_clock
) -> None:
    settings.SECKILL_ADMISSION_RATE = 0.001
    settings.SECKILL_ADMISSION_BURST = 1
    hot, quiet = start_sale(stock=10), start_sale(stock=10)
    buyers = [UserFactory() for _ in range(3)]

    assert _buy(client_for(buyers[0]), hot.id).status_code == 200
    assert _buy(client_for(buyers[1]), hot.id).status_code == 429
    assert _buy(client_for(buyers[1]), quiet.id).status_code == 200
    with pytest.raises(RateLimited) as refused:  # what the DRF viewset calls
        seckill.voucher_seckill(user_id=buyers[2].id, voucher_id=quiet.id)
    assert refused.value.retry_after == 1000


@pytest.mark.django_db(transaction=True)
def test_off_by_default_a_crowd_reaches_the_sale(fake_clock, redis_client, client) -> None:
    assert (django_settings.SECKILL_ADMISSION_RATE, django_settings.SECKILL_ADMISSION_BURST) == (
        0,
        0,
    )
    sale = start_sale(stock=100)
    crowd = _clients(30)
    counted = value(scrape(client), SALE_TOTAL, voucher=str(sale.id), verdict="not_admitted")

    statuses = run_concurrently(lambda i: _buy(crowd[i], sale.id).status_code, workers=30)

    assert statuses == [200] * 30
    assert redis_client.get(shard.stock_key(sale.id)) == b"70"
    after = value(scrape(client), SALE_TOTAL, voucher=str(sale.id), verdict="not_admitted")
    assert after == counted


def test_the_schema_documents_the_429_of_the_sale(api) -> None:
    operation = json.loads(api.get("/api/schema/?format=json").content)["paths"][
        "/api/vouchers/{voucher_id}/seckill"
    ]["post"]
    assert "429" in operation["responses"]
    assert "lets through to the sale" in operation["description"]


def test_a_negative_rate_or_burst_is_refused() -> None:
    for name in ("SECKILL_ADMISSION_RATE", "SECKILL_ADMISSION_BURST"):
        result = subprocess.run(
            [sys.executable, "manage.py", "check"],
            cwd=ROOT,
            env={**os.environ, name: "-1"},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode != 0
        assert "SECKILL_ADMISSION_RATE and SECKILL_ADMISSION_BURST must be >= 0" in result.stderr
