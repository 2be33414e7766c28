"""SECKILL_DURABILITY (issue 23): each mode's promise checked against Redis's own
configuration in /api/health, and `replica` answering 503, never 200, for an order no
replica confirmed."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis
from django.conf import settings as django_settings

from tests.helpers import PrivateRedis, wait_until
from tests.vouchers.sales import drain_all, start_sale
from vouchers.models import VoucherOrder

single_redis = pytest.mark.skipif(
    django_settings.REDIS_CLUSTER, reason="a single Redis's own configuration"
)


@pytest.fixture
def appendfsync(redis_client) -> Iterator[None]:
    """Put the test Redis's appendfsync back after a test changed it."""
    before = redis_client.config_get("appendfsync")["appendfsync"]
    yield
    redis_client.config_set("appendfsync", before)


@single_redis
@pytest.mark.django_db
def test_fsync_mode_needs_appendfsync_always(api, redis_client, settings, appendfsync) -> None:
    settings.SECKILL_DURABILITY = "fsync"
    redis_client.config_set("appendfsync", "always")
    response = api.get("/api/health")
    assert (response.status_code, response.json()["sale_durability"]) == (200, "fsync")

    redis_client.config_set("appendfsync", "everysec")
    response = api.get("/api/health")
    assert response.status_code == 503
    assert response.json()["sale_durability"] == "fsync: Redis has appendfsync everysec"


@pytest.mark.django_db
def test_none_mode_promises_nothing_to_check(api, settings) -> None:
    settings.SECKILL_DURABILITY = "none"
    response = api.get("/api/health")
    assert (response.status_code, response.json()["sale_durability"]) == (200, "none")


@single_redis
@pytest.mark.django_db(transaction=True)
def test_replica_mode_without_a_replica_answers_503_not_200(
    api, user, user_api, settings, fake_clock
) -> None:
    settings.SECKILL_DURABILITY = "replica"
    settings.SECKILL_REPLICA_WAIT_MS = 50
    sale = start_sale(stock=5)

    response = user_api.post(f"/api/vouchers/{sale.id}/seckill")

    assert response.status_code == 503
    assert response.headers["Retry-After"] == "1"
    assert response.json()["code"] == "service_unavailable"
    health = api.get("/api/health")
    assert health.status_code == 503
    assert health.json()["sale_durability"] == "replica: a Redis master has no replica connected"
    # The master did accept it: kept if the master lives, as the answer warned.
    drain_all()
    assert VoucherOrder.objects.filter(user=user, voucher=sale).count() == 1


@pytest.fixture
def replica(redis_client, tmp_path) -> Iterator[None]:
    """A replica of the test Redis (a Cluster has one per master already)."""
    if django_settings.REDIS_CLUSTER:
        yield
        return
    master = redis_client.connection_pool.connection_kwargs
    server = PrivateRedis(
        tmp_path, "--replicaof", master.get("host", "127.0.0.1"), str(master.get("port", 6379))
    )
    server.start()
    try:
        server.wait_replicating()
        wait_until(lambda: _acknowledges(redis_client), timeout=30, interval=0.05)
        yield
    finally:
        server.kill()
        wait_until(lambda: redis_client.info("replication")["connected_slaves"] == 0, 30)


def _acknowledges(client: redis.Redis) -> bool:
    """A write is acknowledged by the replica (right after its first sync, the replica
    has not acknowledged any offset yet, and WAIT may time out)."""
    pipe = client.pipeline(transaction=False)
    pipe.set("replica-check", 1)
    pipe.wait(1, 200)
    return pipe.execute()[1] >= 1


@pytest.mark.django_db(transaction=True)
def test_replica_mode_answers_200_once_a_replica_has_the_order(
    api, user, user_api, settings, fake_clock, replica
) -> None:
    settings.SECKILL_DURABILITY = "replica"
    sale = start_sale(stock=5)

    response = user_api.post(f"/api/vouchers/{sale.id}/seckill")

    assert response.status_code == 200, response.json()
    health = api.get("/api/health").json()
    assert health["sale_durability"] == "replica"
    assert user_api.post(f"/api/vouchers/{sale.id}/seckill").json()["code"] == "duplicate_order"
