"""The shop-id Bloom filter watched (decisions 490-492): its fill and false-positive rate in
/metrics, and the periodic rebuild at a larger size once it is full, with every shop id
still answered "maybe" afterwards."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from shops import caches, services, tasks
from tests.factories import ShopFactory
from tests.metrics import scrape, value
from toolkit.redis import keys


@pytest.fixture
def small_bloom(settings) -> Iterator[None]:
    """A shop-id filter sized for 20 ids (the caches are built once per process)."""
    settings.SHOP_BLOOM_CAPACITY = 20
    caches.shop_bloom.cache_clear()
    caches.shop_cache.cache_clear()
    yield
    caches.shop_bloom.cache_clear()
    caches.shop_cache.cache_clear()


@pytest.mark.django_db
def test_metrics_export_the_fill_and_false_positive_rate(client, small_bloom, settings) -> None:
    ShopFactory.create_batch(10)
    services.shop_bloom_rebuild()

    samples = scrape(client)

    stats = caches.shop_bloom().stats()
    label = {"filter": "shop-ids"}
    assert value(samples, "dianping_bloom_capacity", **label) == 20
    assert value(samples, "dianping_bloom_estimated_items", **label) == pytest.approx(10, rel=0.1)
    assert value(samples, "dianping_bloom_fill_ratio", **label) == pytest.approx(0.5, rel=0.1)
    assert value(samples, "dianping_bloom_false_positive_rate", **label) == pytest.approx(
        stats.false_positive_rate
    )
    assert 0 < stats.false_positive_rate < 0.001
    assert value(samples, "dianping_bloom_false_positive_limit", **label) == (
        settings.SHOP_BLOOM_MAX_FALSE_POSITIVE_RATE
    )
    assert value(samples, "dianping_collector_up", collector="shops.metrics.bloom_metrics") == 1


@pytest.mark.django_db
def test_a_full_filter_is_rebuilt_larger_by_the_periodic_task(
    redis_client, small_bloom, settings
) -> None:
    shops = ShopFactory.create_batch(12)
    services.shop_bloom_rebuild()
    assert tasks.watch_shop_bloom()["bloom_rebuilt"] == 0  # fill 0.6: left alone

    more = ShopFactory.create_batch(6)
    for shop in more:  # what each new shop's sync after its commit does
        services.shop_indexes_sync(shop.id, None)
    shops += more  # fill 0.9, past SHOP_BLOOM_REBUILD_FILL
    assert caches.shop_bloom().stats().fill > settings.SHOP_BLOOM_REBUILD_FILL

    assert tasks.watch_shop_bloom()["bloom_rebuilt"] == 1

    bloom = caches.shop_bloom()
    assert bloom.stats().capacity == 20 * settings.SHOP_BLOOM_GROWTH
    assert bloom.stats().fill == pytest.approx(18 / 40, rel=0.15)
    assert all(bloom.might_contain(str(shop.id)) for shop in shops)
    assert redis_client.hget(keys.bloom_pointer(bloom.key), "current") == b"2:40"
    assert tasks.watch_shop_bloom()["bloom_rebuilt"] == 0  # room again
    assert not bloom.might_contain("999999999")
