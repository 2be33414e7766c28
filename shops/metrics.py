"""The shop-id Bloom filter watched (decision 491): its estimated fill and false-positive
rate read at scrape time (one BITCOUNT; nothing on the request path), with the capacity
and the rate the alert guards exported beside them (docs/operations.md "Bloom filter")."""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings
from prometheus_client.core import GaugeMetricFamily, Metric

from .caches import shop_bloom

FILTER = "shop-ids"


def bloom_metrics() -> Iterable[Metric]:
    stats = shop_bloom().stats()
    families = [
        ("dianping_bloom_capacity", "Items a Bloom filter is sized for.", stats.capacity),
        (
            "dianping_bloom_estimated_items",
            "Items in a Bloom filter, estimated from its set bits.",
            stats.estimated_items,
        ),
        (
            "dianping_bloom_fill_ratio",
            "A Bloom filter's estimated items over its capacity (rebuilt larger past "
            "SHOP_BLOOM_REBUILD_FILL).",
            stats.fill,
        ),
        (
            "dianping_bloom_false_positive_rate",
            "A Bloom filter's false-positive rate now, (set bits / bits) ** hashes.",
            stats.false_positive_rate,
        ),
        (
            "dianping_bloom_false_positive_limit",
            "The false-positive rate a Bloom filter must stay under; the alert fires at "
            "half of it.",
            settings.SHOP_BLOOM_MAX_FALSE_POSITIVE_RATE,
        ),
    ]
    for name, documentation, value in families:
        family = GaugeMetricFamily(name, documentation, labels=["filter"])
        family.add_metric([FILTER], float(value))
        yield family
