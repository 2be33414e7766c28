"""The Celery worker outlives a restart of its broker's Redis (issue 23): kombu's Redis
transport used to die on the reconnect ("Unrecoverable error: AttributeError 'NoneType'
object has no attribute 'hostname'"), and the flash-sale drain stopped with it.

The worker here is the production shape (a prefork pool), its broker a Redis of the
test's own that is killed with SIGKILL and started again from its AOF."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from kombu import Connection

from dianping.celery import app
from tests.helpers import PrivateRedis, wait_until
from tests.workers import current_database_url, kill, start_celery, worker_env
from toolkit.redis import keys
from vouchers.sale.shard import shard_lock

pytestmark = pytest.mark.slow


@pytest.fixture
def broker(tmp_path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(tmp_path)
    server.start()
    yield server
    server.kill()


def _send(broker: PrivateRedis, task: str) -> None:
    """Through `broker`, whatever CELERY_BROKER_URL says (a Cluster run sets it)."""
    with Connection(broker.url) as connection:
        app.send_task(task, connection=connection)


def _heartbeat_through(broker: PrivateRedis, redis_client) -> float:
    """Send the heartbeat task through `broker` and wait until a worker has run it."""
    before = float(redis_client.get(keys.heartbeat()) or 0)
    _send(broker, "dianping.tasks.heartbeat")
    return wait_until(lambda: float(redis_client.get(keys.heartbeat()) or 0) > before, 60)


@pytest.mark.django_db(transaction=True)
def test_the_worker_goes_on_after_its_broker_is_killed_and_restarted(broker, redis_client) -> None:
    env = {**worker_env(current_database_url()), "CELERY_BROKER_URL": broker.url}
    worker = start_celery(
        "worker",
        "--pool",
        "prefork",
        "--concurrency",
        "2",
        "--loglevel",
        "INFO",
        "--without-heartbeat",
        "--without-mingle",
        "--without-gossip",
        env=env,
        capture=True,
    )
    try:
        _heartbeat_through(broker, redis_client)  # the worker consumes from the broker
        # A drain in flight (it loops for 30 s here): its message is unacknowledged when
        # the broker dies, and putting it back on the queue is what used to kill the worker.
        _send(broker, "vouchers.tasks.drain_seckill_orders")
        wait_until(lambda: redis_client.exists(shard_lock(0).key), 30)

        broker.kill()
        time.sleep(1)  # not a synchronisation: the broker stays down for a while
        broker.start()

        _heartbeat_through(broker, redis_client)  # and still does, without a restart
        assert worker.poll() is None
    except BaseException:
        print(kill(worker))  # pytest shows it with the failure
        raise
    output = kill(worker)
    assert "Unrecoverable error" not in output, output
