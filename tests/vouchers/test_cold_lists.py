"""A shop's voucher list on a cold cache: what it reads of each flash sale (its cached
window: the shards of its stock's buckets, vouchers/sale/window.py) is read for all its
sales together, so the list costs the same round trips and queries for six sales as for
one. Real Redis and database; the caches emptied, the near cache too."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from tests.factories import NormalVoucherFactory, ShopFactory
from tests.helpers import count_round_trips
from tests.vouchers.sales import start_sale
from toolkit.redis import nearcache
from toolkit.redis.client import get_redis
from toolkit.redis.cluster import is_cluster
from vouchers.sale import window

pytestmark = pytest.mark.django_db


def _empty_caches() -> None:
    """Every read-through cache entry gone (stock, buyers and streams stay), and every
    copy this process keeps."""
    client = get_redis()
    for key in list(client.scan_iter(match="cache:*", count=1000)):
        client.delete(key)
    nearcache.clear_all()


def _cold_read(api: APIClient, shop, monkeypatch) -> tuple[list[tuple], int, list[dict]]:
    """(the Redis batches sent, queries run, the list) of one read on empty caches."""
    _empty_caches()
    round_trips = count_round_trips(monkeypatch)
    with CaptureQueriesContext(connection) as queries:
        response = api.get(f"/api/shops/{shop.id}/vouchers")
    assert response.status_code == 200
    monkeypatch.undo()
    return list(round_trips), len(queries), response.json()


def test_a_cold_list_reads_its_sales_windows_together(fake_clock, monkeypatch) -> None:
    first, one, six = ShopFactory(), ShopFactory(), ShopFactory()
    start_sale(shop=first, stock=3)
    start_sale(shop=one, stock=3)
    sales = [start_sale(shop=six, stock=3 + i) for i in range(6)]
    NormalVoucherFactory(shop=six)
    api = APIClient()
    # The process's first read also loads what it keeps for good (scripts, connections).
    _cold_read(api, first, monkeypatch)

    few_trips, few_queries, _ = _cold_read(api, one, monkeypatch)
    many_trips, many_queries, listed = _cold_read(api, six, monkeypatch)

    # Right, and from the windows' cache: each sale's live stock over its buckets.
    remaining = {item["id"]: item["remaining"] for item in listed}
    assert remaining == {**{s.id: 3 + i for i, s in enumerate(sales)}, listed[-1]["id"]: None}
    assert many_queries == few_queries
    # The round trips are compared on a single Redis, where one batch is one trip. A
    # Cluster splits each batch by the masters its keys hash to, and six sales' keys land
    # on the masters differently from one sale's, so no fixed per-master bound holds there.
    if not is_cluster(get_redis()):
        assert len(many_trips) == len(few_trips)
    # Read again, warm: nothing is loaded, and the windows come from the near cache.
    with CaptureQueriesContext(connection) as queries:
        assert api.get(f"/api/shops/{six.id}/vouchers").json() == listed
    assert len(queries) == 0


def test_sale_windows_read_many_as_one_reads_one(fake_clock) -> None:
    sale = start_sale(stock=5, buckets=2)
    normal = NormalVoucherFactory()
    missing = 987_654_321

    windows = window.sale_windows([sale.id, normal.id, missing, sale.id])

    assert windows == {
        sale.id: window.sale_window(sale.id),
        normal.id: window.sale_window(normal.id),
        missing: None,
    }
    sale_window, normal_window = windows[sale.id], windows[normal.id]
    assert sale_window is not None
    assert normal_window is not None
    assert len(sale_window.shards) == 2
    assert (sale_window.seckill, normal_window.seckill) == (True, False)
