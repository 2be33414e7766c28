"""/metrics: protected, a valid exposition, every process's counters summed, the sale's
gauges read at scrape time (real Redis, real database, a real second process)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.test import Client

from accounts.services import users_ensure
from tests.factories import NormalVoucherFactory, ShopFactory, UserFactory, VoucherFactory
from tests.helpers import client_for
from tests.metrics import TOKEN, Samples, scrape, value
from tests.vouchers.sales import drain_all, start_sale
from vouchers import keys
from vouchers.sale import shard

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.django_db
def test_metrics_need_the_bearer_token(client, settings) -> None:
    assert client.get("/metrics").status_code == 401
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 401
    assert client.get("/metrics", HTTP_AUTHORIZATION=TOKEN).status_code == 401
    assert client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").status_code == 200
    settings.METRICS_TOKEN = ""  # none configured: there is no such page
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer ").status_code == 404


@pytest.mark.django_db
def test_requests_are_counted_by_route_template_and_status(client, user) -> None:
    shop = ShopFactory()
    before = scrape(client)
    api = client_for(user)
    assert api.get("/api/shop-types").status_code == 200  # DRF
    assert api.get(f"/api/shops/{shop.id}").status_code == 200  # a fast path
    assert api.get(f"/api/shops/{shop.id}").status_code == 200
    assert api.get("/api/shops/999999999").status_code == 404
    after = scrape(client)

    def delta(route: str, status: str) -> float:
        labels = {"route": route, "method": "GET", "status": status}
        name = "dianping_http_request_duration_seconds_count"
        return value(after, name, **labels) - value(before, name, **labels)

    assert delta("api/shop-types", "200") == 1
    assert delta("api/shops/<id:shop_id>", "200") == 2
    assert delta("api/shops/<id:shop_id>", "404") == 1
    assert not any(f"/api/shops/{shop.id}" in dict(labels).get("route", "") for _, labels in after)
    buckets = {
        dict(labels)["le"]: v
        for (name, labels), v in after.items()
        if name == "dianping_http_request_duration_seconds_bucket"
        and dict(labels)["route"] == "api/shops/<id:shop_id>"
        and dict(labels)["method"] == "GET"
        and dict(labels)["status"] == "200"
    }
    assert buckets["+Inf"] == value(
        after,
        "dianping_http_request_duration_seconds_count",
        route="api/shops/<id:shop_id>",
        method="GET",
        status="200",
    )


@pytest.mark.django_db
def test_the_sale_counts_its_verdicts_and_the_scrape_reads_its_state(
    client, fake_clock, redis_client
) -> None:
    sale = start_sale(stock=1)
    voucher, shard_no = str(sale.id), str(shard.shard_of(sale.id))
    first, second = users_ensure(phones=["13900000001", "13900000002"])
    before = scrape(client)
    stock = value(before, "dianping_seckill_stock_left", voucher=voucher)
    assert stock == 1

    assert client_for(first).post(f"/api/vouchers/{sale.id}/seckill").status_code == 200
    assert client_for(second).post(f"/api/vouchers/{sale.id}/seckill").status_code == 409
    assert client_for(first).post(f"/api/vouchers/{sale.id}/seckill").status_code == 409
    during = scrape(client)

    def moved(samples: Samples, name: str, **labels: str) -> float:
        return value(samples, name, **labels) - value(before, name, **labels)

    sale_total = "dianping_seckill_requests_total"
    assert moved(during, sale_total, voucher=voucher, verdict="accepted") == 1
    # The second is refused by the script; the third by the process's sold-out flag.
    assert moved(during, sale_total, voucher=voucher, verdict="sold_out") == 2
    assert value(during, "dianping_seckill_stock_left", voucher=voucher) == 0
    assert value(during, "dianping_seckill_pending_orders", shard=shard_no) == 1
    assert value(during, "dianping_drain_lag_seconds", shard=shard_no) >= 0
    route = {"route": "api/vouchers/<id:voucher_id>/seckill", "method": "POST"}
    count = "dianping_http_request_duration_seconds_count"
    assert moved(during, count, **route, status="200") == 1
    assert moved(during, count, **route, status="409") == 2

    # The drain's counters move, a malformed entry is dead-lettered and shows in the gauge.
    redis_client.xadd(keys.seckill_orders(int(shard_no)), {"voucher": voucher, "user": "x"})
    assert drain_all() == 2
    after = scrape(client)
    drained = "dianping_drain_orders_total"
    assert moved(after, drained, shard=shard_no, outcome="persisted") == 1
    assert moved(after, drained, shard=shard_no, outcome="dead_lettered") == 1
    assert moved(after, "dianping_drain_batch_size_count", shard=shard_no) >= 1
    assert value(after, "dianping_seckill_dead_letters", shard=shard_no) == 1
    assert value(after, "dianping_seckill_pending_orders", shard=shard_no) == 0
    assert value(after, "dianping_drain_lag_seconds", shard=shard_no) == 0
    lag_count = value(after, "dianping_drain_persist_lag_seconds_bucket", shard=shard_no, le="+Inf")
    assert lag_count >= 1
    assert value(after, "dianping_delay_queue_depth", queue="order-pay-timeout") == 1  # pay timeout


@pytest.mark.django_db
def test_health_gauges_and_cache_hits(client, user) -> None:
    shop = ShopFactory()
    before = scrape(client)
    api = client_for(user)
    api.get(f"/api/shops/{shop.id}")  # a miss, then near-cache hits
    api.get(f"/api/shops/{shop.id}")
    after = scrape(client)
    assert value(after, "dianping_redis_up", redis="default") == 1
    assert value(after, "dianping_redis_up", redis="broker") == 1
    assert value(after, "dianping_database_up", database="default") == 1
    assert ("dianping_celery_queue_length", frozenset({("queue", "celery")})) in after
    for collector in ("dianping.metrics.health_metrics", "vouchers.sale.gauges.sale_metrics"):
        assert value(after, "dianping_collector_up", collector=collector) == 1
    lookups = "dianping_cache_lookups_total"
    hits = value(after, lookups, cache="shop", result="hit") - value(
        before, lookups, cache="shop", result="hit"
    )
    misses = value(after, lookups, cache="shop", result="miss") - value(
        before, lookups, cache="shop", result="miss"
    )
    assert (hits, misses) == (1, 1)


@pytest.mark.django_db
def test_counts_of_several_processes_are_summed(client) -> None:
    """What granian's workers and Celery's processes do: each writes its own files in
    PROMETHEUS_MULTIPROC_DIR, and any one of them serves the sum."""
    assert os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    from vouchers.metrics import verdict_counter

    labels = {"voucher": "987654321", "verdict": "accepted"}
    before = value(scrape(client), "dianping_seckill_requests_total", **labels)
    verdict_counter(987654321, "accepted").inc(2)
    code = (
        "import django; django.setup()\n"
        "from vouchers.metrics import verdict_counter\n"
        "verdict_counter(987654321, 'accepted').inc(3)\n"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "dianping.settings.test"}
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True, timeout=60)
    assert value(scrape(client), "dianping_seckill_requests_total", **labels) - before == 5


@pytest.mark.django_db
def test_the_shop_sales_job_counts_what_it_tells_and_when_it_last_succeeded(
    client, fake_clock, monkeypatch
) -> None:
    from notifications import reminders, tasks
    from shops.models import ShopStaff

    shop = ShopFactory()
    ShopStaff.objects.create(shop=shop, user=UserFactory(), role=ShopStaff.Role.OWNER)
    start_sale(shop=shop, stock=0, status="active")  # started a minute ago, and sold out
    sent, last = (
        "dianping_notifications_sent_total",
        ("dianping_periodic_task_last_success_timestamp_seconds"),
    )
    before = scrape(client)
    assert (last, frozenset({("task", "notify-shop-sales")})) not in before  # never ran

    started = time.time()
    assert tasks.notify_shop_sales() == 2
    assert tasks.notify_shop_sales() == 0  # told once: nothing more is counted
    after = scrape(client)

    for kind in ("sale_started", "sale_sold_out"):
        assert value(after, sent, kind=kind) - value(before, sent, kind=kind) == 1
    succeeded = value(after, last, task="notify-shop-sales")
    assert started <= succeeded <= time.time()
    assert (
        value(after, "dianping_collector_up", collector="dianping.metrics.periodic_task_metrics")
        == 1
    )

    # A run that fails leaves its last success where it was (the alert's age grows).
    def broken(**_: object) -> int:
        raise ConnectionError("the database is down")

    monkeypatch.setattr(reminders, "shop_sales_notify", broken)
    with pytest.raises(ConnectionError):
        tasks.notify_shop_sales()
    assert value(scrape(client), last, task="notify-shop-sales") == succeeded


@pytest.mark.django_db(transaction=True)
def test_the_rankings_job_reports_its_last_success_with_its_own_late_threshold(
    client, settings, monkeypatch
) -> None:
    """Each periodic task's threshold is exported beside its last success, so the alert
    waits hours for the hourly rankings job and minutes for the minute job (decision 420)."""
    from rankings import services, tasks

    last, late = (
        "dianping_periodic_task_last_success_timestamp_seconds",
        "dianping_periodic_task_late_threshold_seconds",
    )
    before = scrape(client)
    assert value(before, late, task="compute-rankings") == 3 * 60 * 60
    assert value(before, late, task="notify-shop-sales") == 10 * 60
    assert (last, frozenset({("task", "compute-rankings")})) not in before  # never ran

    started = time.time()
    assert tasks.compute_rankings() != []  # the default city's lists computed
    succeeded = value(scrape(client), last, task="compute-rankings")
    assert started <= succeeded <= time.time()
    assert tasks.compute_rankings() == []  # every list current: still a success
    again = value(scrape(client), last, task="compute-rankings")
    assert again >= succeeded

    def broken(**_: object) -> list[int]:
        raise ConnectionError("Redis is down")

    monkeypatch.setattr(services, "compute_all", broken)
    with pytest.raises(ConnectionError):
        tasks.compute_rankings()
    assert value(scrape(client), last, task="compute-rankings") == again

    settings.METRICS_PERIODIC_TASKS = {"compute-rankings": 120}
    assert value(scrape(client), late, task="compute-rankings") == 120


def broken_collector() -> list:
    raise ConnectionError("the sale's Redis is down")


@pytest.mark.django_db
def test_a_failing_collector_costs_only_its_own_gauges(client, settings) -> None:
    settings.METRICS_COLLECTORS = [
        "tests.platform.test_metrics.broken_collector",
        "dianping.metrics.health_metrics",
    ]
    samples = scrape(client)
    assert (
        value(
            samples,
            "dianping_collector_up",
            collector="tests.platform.test_metrics.broken_collector",
        )
        == 0
    )
    assert value(samples, "dianping_collector_up", collector="dianping.metrics.health_metrics") == 1
    assert value(samples, "dianping_redis_up", redis="default") == 1


@pytest.mark.django_db
def test_the_admin_live_sale_shows_the_numbers_of_a_scrape(
    client, admin_client, fake_clock, redis_client
) -> None:
    """The live page's numbers are read where /metrics reads them: after a sale's
    accepted, refused and dead-lettered attempts, both say the same."""
    sale = start_sale(stock=2)
    voucher, shard_no = str(sale.id), str(shard.shard_of(sale.id))
    buyers = users_ensure(phones=[f"1390000010{i}" for i in range(3)])
    live_numbers = f"/admin/vouchers/voucher/{sale.id}/live/numbers/"
    before = admin_client.get(live_numbers).json()  # counters outlive a test's database
    for buyer in [*buyers, buyers[0]]:  # two accepted, one sold out, then one more sold out
        client_for(buyer).post(f"/api/vouchers/{sale.id}/seckill")
    redis_client.xadd(keys.seckill_orders(int(shard_no)), {"voucher": voucher, "user": "x"})
    drain_all()  # both orders persisted, the malformed entry dead-lettered

    page = admin_client.get(f"/admin/vouchers/voucher/{sale.id}/live/")
    numbers = admin_client.get(live_numbers).json()
    samples = scrape(client)

    assert page.status_code == 200
    assert f'data-numbers-url="/admin/vouchers/voucher/{sale.id}/live/numbers/"' in page.text
    sale_total = "dianping_seckill_requests_total"
    assert numbers["accepted"] == value(samples, sale_total, voucher=voucher, verdict="accepted")
    # Counters outlive a test's database, and a voucher id is reused by later tests: every
    # label the page shows is the scrape's, whatever earlier sales with this id refused.
    assert numbers["refused"] == {
        verdict: value(samples, sale_total, voucher=voucher, verdict=verdict)
        for verdict in numbers["refused"]
    }
    assert numbers["accepted"] - before["accepted"] == 2
    assert numbers["refused"]["sold_out"] - before["refused"].get("sold_out", 0) == 2
    assert numbers["stock_left"] == value(samples, "dianping_seckill_stock_left", voucher=voucher)
    assert numbers["stock_left"] == 0
    assert numbers["persisted"] == 2
    assert numbers["drain"] == {
        "shard": int(shard_no),
        "lag_seconds": value(samples, "dianping_drain_lag_seconds", shard=shard_no),
        "pending": value(samples, "dianping_seckill_pending_orders", shard=shard_no),
        "dead_letters": value(samples, "dianping_seckill_dead_letters", shard=shard_no),
    }
    assert numbers["drain"]["dead_letters"] == 1


@pytest.mark.django_db
def test_the_live_sale_page_is_for_staff_and_flash_sales_only(admin_client, user) -> None:
    sale = VoucherFactory()
    plain = NormalVoucherFactory()
    numbers = f"/admin/vouchers/voucher/{sale.id}/live/numbers/"

    assert admin_client.get(f"/admin/vouchers/voucher/{plain.id}/live/").status_code == 404
    assert admin_client.get(f"/admin/vouchers/voucher/{plain.id}/live/numbers/").status_code == 404
    someone = Client()
    someone.force_login(user)  # signed in, but no operator
    assert someone.get(numbers).status_code == 302  # to the admin's login
    listing = admin_client.get("/admin/vouchers/voucher/").content.decode()
    assert f'href="/admin/vouchers/voucher/{sale.id}/live/"' in listing
    change = admin_client.get(f"/admin/vouchers/voucher/{sale.id}/change/").content.decode()
    assert f'href="/admin/vouchers/voucher/{sale.id}/live/"' in change
