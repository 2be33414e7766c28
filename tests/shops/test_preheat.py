"""Hot shops preheated with a logical expiry (shops/preheat.py, decisions 487-489): which
shops are chosen, and that a preheated shop's read never reaches the database, even past
its logical expiry (served stale while one refresh runs behind the key's lock)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from shops import preheat, selectors, services, tasks
from shops.caches import shop_cache
from tests.factories import NormalVoucherFactory, ShopFactory, VoucherFactory
from tests.helpers import wait_until
from toolkit.redis import keys
from toolkit.redis.cache import PREHEATED
from traffic import visits


def _view(shop_id: int, times: int) -> None:
    for i in range(times):
        visits.record(visits.shop_subject(shop_id), visits.Visitor(f"user:{i}"))


def _detail(shop_id: int) -> bytes | None:
    return selectors.shop_detail(shop_id=shop_id).raw


@pytest.mark.django_db
def test_the_most_viewed_shops_and_those_on_sale_are_chosen(settings) -> None:
    settings.SHOP_PREHEAT_TOP = 2
    busy, busier, quiet, on_sale, sale_later, plain_voucher = ShopFactory.create_batch(6)
    _view(busy.id, 5)
    _view(busier.id, 9)
    _view(quiet.id, 1)
    visits.flush()
    now = timezone.now()
    VoucherFactory(shop=on_sale, begin_time=now - timedelta(minutes=5))
    VoucherFactory(shop=sale_later)  # starts in an hour
    NormalVoucherFactory(shop=plain_voucher)  # not a sale

    assert preheat.hot_shop_ids() == [busier.id, busy.id, on_sale.id]


@pytest.mark.django_db
def test_many_hot_shops_cost_one_query_and_a_deleted_one_is_stored_missing(
    redis_client, settings, monkeypatch, django_assert_num_queries
) -> None:
    settings.SHOP_PREHEAT_TOP = 10
    monkeypatch.setattr(preheat, "BATCH", 4)  # two batches
    shops = ShopFactory.create_batch(6)
    gone = ShopFactory()
    for shop in [*shops, gone]:
        _view(shop.id, 1)
    visits.flush()
    gone_id = gone.id
    gone.delete()

    # The running sales' shops, then one load per batch.
    with django_assert_num_queries(3):
        assert preheat.shops_preheat() == 7

    cache = shop_cache()
    for shop in shops:
        stored = redis_client.get(cache.key(shop.id))
        assert stored[:1] == PREHEATED
        assert shop.name.encode() in stored
    missing = redis_client.get(cache.key(gone_id))
    assert (missing[:1], missing[9:]) == (PREHEATED, b"")  # the null marker, preheated
    assert _detail(gone_id) is None


def test_yesterdays_views_count_with_todays(redis_client, fake_clock) -> None:
    _view(1, 3)
    _view(2, 2)
    visits.flush()
    fake_clock.advance(24 * 60 * 60)  # the next day: today's ranking is empty
    _view(2, 2)
    visits.flush()

    assert visits.most_viewed("shop", limit=5) == [2, 1]
    assert visits.most_viewed("shop", limit=1) == [2]


@pytest.mark.django_db(transaction=True)
def test_a_preheated_shop_never_misses_even_past_its_logical_expiry(
    redis_client, fake_clock, settings
) -> None:
    settings.SHOP_PREHEAT_TOP = 5
    shop = ShopFactory(name="Old name")
    _view(shop.id, 3)
    visits.flush()
    cache = shop_cache()
    key = cache.key(shop.id)

    assert tasks.preheat_hot_shops()["preheated"] == 1
    assert redis_client.pttl(key) > (settings.SHOP_PREHEAT_KEEP - 60) * 1000
    # The row changes behind the cache's back (no eviction), and the entry goes stale.
    type(shop).objects.filter(pk=shop.id).update(name="New name")
    fake_clock.advance(settings.SHOP_PREHEAT_TTL + 1)
    if cache.near:
        cache.near.evict(key)  # a read from Redis, not the process's copy

    with CaptureQueriesContext(connection) as queries:
        served = _detail(shop.id)
    assert served is not None
    assert b"Old name" in served  # the stale copy, at once
    assert len(queries) == 0  # the read itself never went to the database

    def refreshed() -> bool:
        raw = redis_client.get(key)
        return raw is not None and b"New name" in raw

    wait_until(refreshed)  # one background refresh, behind the key's lock
    wait_until(lambda: not redis_client.exists(keys.lock(keys.cache_lock(key))))  # released
    if cache.near:
        cache.near.evict(key)
    assert b"New name" in (_detail(shop.id) or b"")


@pytest.mark.django_db
def test_the_task_refreshes_entries_before_they_go_stale_and_records_its_success(
    redis_client, fake_clock, settings
) -> None:
    shop = ShopFactory()
    VoucherFactory(shop=shop, begin_time=timezone.now() - timedelta(minutes=1))
    cache = shop_cache()
    tasks.preheat_hot_shops()
    first = redis_client.get(cache.key(shop.id))
    fake_clock.advance(settings.SHOP_PREHEAT_INTERVAL)  # the next run, before the expiry

    tasks.preheat_hot_shops()

    second = redis_client.get(cache.key(shop.id))
    assert first[:1] == second[:1] == b"\x00"  # preheated entries
    expiry = int.from_bytes(second[1:9], "big") / 1000
    assert expiry == pytest.approx(
        fake_clock.value + settings.SHOP_PREHEAT_TTL, abs=1
    )  # pushed on: fresh until well after the next run
    assert redis_client.get(keys.task_succeeded("preheat-hot-shops")) is not None
    assert (
        settings.METRICS_PERIODIC_TASKS["preheat-hot-shops"] >= 3 * settings.SHOP_PREHEAT_INTERVAL
    )


@pytest.mark.django_db(transaction=True)
def test_a_write_during_a_preheat_is_not_overwritten(redis_client, settings) -> None:
    shop = ShopFactory(name="Before")
    cache = shop_cache()

    def load_then_write() -> object:
        loaded = selectors.shop_document_load(shop.id)
        shop.name = "After"
        services.shop_save(shop=shop, fields=["name"])  # evicts the entry after commit
        return loaded

    assert cache.preheat(shop.id, load_then_write) is False
    assert b"After" in (_detail(shop.id) or b"")
