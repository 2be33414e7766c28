"""Draining accepted orders into the database, when things go wrong too."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest
from django.conf import settings

from accounts.services import users_ensure
from tests.factories import UserFactory
from tests.helpers import wait_until
from tests.vouchers.sales import drain_all, drain_task_once, start_sale
from tests.workers import current_database_url, kill, start_worker, unreachable_database_url
from toolkit.errors import Conflict, ServiceUnavailable
from vouchers import keys
from vouchers.models import Voucher, VoucherOrder
from vouchers.sale import drain, seckill, shard

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.fixture
def sale(db, fake_clock):
    return start_sale(stock=5000)


def _accept(voucher: Voucher, count: int) -> list[int]:
    users = users_ensure(phones=[f"100{i:08d}" for i in range(count)])
    return [seckill.voucher_seckill(user_id=u.id, voucher_id=voucher.id) for u in users]


def _stream_state(voucher: Voucher, redis_client) -> dict:
    stream = keys.seckill_orders(shard.shard_of(voucher.id))
    return {
        "pending": redis_client.xpending(stream, shard.GROUP)["pending"],
        "dead": redis_client.xlen(keys.seckill_dead_letters(shard.shard_of(voucher.id))),
    }


@pytest.mark.django_db
def test_a_malformed_entry_is_dead_lettered_and_does_not_block_others(sale, redis_client) -> None:
    accepted = _accept(sale, 3)
    stream = keys.seckill_orders(shard.shard_of(sale.id))
    redis_client.xadd(stream, {"voucher": str(sale.id), "user": "not-a-number"})

    drain_all()

    assert sorted(VoucherOrder.objects.values_list("id", flat=True)) == sorted(accepted)
    assert _stream_state(sale, redis_client) == {"pending": 0, "dead": 1}
    ((_, dead),) = redis_client.xrange(keys.seckill_dead_letters(shard.shard_of(sale.id)))
    assert b"malformed" in dead[b"reason"]


@pytest.mark.django_db(transaction=True)  # real commits: SQLite checks foreign keys there
def test_an_order_that_keeps_failing_goes_to_the_dead_letters(sale, redis_client) -> None:
    accepted = _accept(sale, 3)
    shard_no = shard.shard_of(sale.id)
    # Well formed, but for a user that does not exist: the insert fails every time. Added
    # as the seckill script adds an order: to the stream and to the pending hash.
    redis_client.xadd(
        keys.seckill_orders(shard_no),
        {"voucher": str(sale.id), "user": "987654321", "seconds": "100", "low": "4"},
    )
    redis_client.hset(keys.seckill_pending(shard_no), "100:4", f"987654321:{sale.id}")
    assert redis_client.hexists(keys.seckill_pending(shard_no), "100:4")

    for _ in range(10):
        drain_all()

    assert sorted(VoucherOrder.objects.values_list("id", flat=True)) == sorted(accepted)
    assert _stream_state(sale, redis_client) == {"pending": 0, "dead": 1}
    assert Voucher.objects.get(pk=sale.pk).stock == 5000 - 3
    assert not redis_client.hexists(keys.seckill_pending(shard_no), "100:4")  # no longer "pending"
    assert redis_client.hgetall(keys.seckill_failures(shard_no)) == {}


@pytest.mark.django_db(transaction=True)
def test_an_unreachable_database_is_never_held_against_the_orders(
    sale, redis_client, monkeypatch
) -> None:
    from django.db import OperationalError

    accepted = _accept(sale, 5)

    def database_gone(orders):
        raise OperationalError("(2003) Can't connect to MySQL server")

    monkeypatch.setattr(drain, "persist", database_gone)
    for _ in range(10):  # twice the dead-letter limit; after a failure the drain recovers
        with pytest.raises(OperationalError):
            drain.drain_shard(shard.shard_of(sale.id), recover=True)

    assert not redis_client.exists(keys.seckill_failures(shard.shard_of(sale.id)))
    assert _stream_state(sale, redis_client) == {"pending": 5, "dead": 0}
    monkeypatch.undo()
    drain_all()
    assert sorted(VoucherOrder.objects.values_list("id", flat=True)) == sorted(accepted)


@pytest.mark.django_db(transaction=True)
def test_a_batch_failing_order_by_order_is_the_systems_fault_not_theirs(
    sale, redis_client, monkeypatch
) -> None:
    from django.db import ProgrammingError

    _accept(sale, 5)

    def table_missing(orders):
        raise ProgrammingError("Table 'vouchers_voucherorder' doesn't exist")

    monkeypatch.setattr(drain, "persist", table_missing)
    for _ in range(10):
        with pytest.raises(drain.SystemFault):
            drain.drain_shard(shard.shard_of(sale.id), recover=True)

    assert not redis_client.exists(keys.seckill_failures(shard.shard_of(sale.id)))
    assert _stream_state(sale, redis_client) == {"pending": 5, "dead": 0}
    monkeypatch.undo()
    drain_all()
    assert VoucherOrder.objects.count() == 5


@pytest.mark.django_db(transaction=True)
def test_a_voucher_whose_database_stock_ran_out_is_dead_lettered_not_stalling_the_shard(
    sale, redis_client
) -> None:
    shard_no = shard.shard_of(sale.id)
    _accept(sale, 3)
    Voucher.objects.filter(pk=sale.pk).update(stock=0)  # broken: Redis sold what the DB lacks
    other = start_sale(stock=10)
    while shard.shard_of(other.id) != shard_no:
        other = start_sale(stock=10)
    later = [seckill.voucher_seckill(user_id=UserFactory().id, voucher_id=other.id)]

    for _ in range(settings.SECKILL_MAX_DELIVERIES + 1):
        drain_all()

    # The broken sale's orders are parked (kept, logged, counted), the other sale flows.
    assert sorted(VoucherOrder.objects.values_list("id", flat=True)) == later
    assert redis_client.xlen(keys.seckill_dead_letters(shard_no)) == 3
    assert redis_client.xpending(keys.seckill_orders(shard_no), shard.GROUP)["pending"] == 0


@pytest.mark.django_db
def test_acked_entries_are_trimmed_and_unacked_ones_kept(sale, redis_client, settings) -> None:
    shard_no = shard.shard_of(sale.id)
    stream = keys.seckill_orders(shard_no)
    _accept(sale, 30)
    drain_all()
    # Everything delivered and acked goes: an idle shard's drain has no lag to report
    # (a last entry kept would read as an order waiting since, and fail /api/health).
    assert redis_client.xlen(stream) == 0
    assert drain.oldest_waiting_seconds() is None

    for _ in range(2):  # two more, read by a drainer that then dies before persisting them
        seckill.voucher_seckill(user_id=UserFactory().id, voucher_id=sale.id)
    ((_, read),) = redis_client.xreadgroup(shard.GROUP, "crashed", {stream: ">"}, count=2)
    drain.trim_acked(shard_no)

    unacked = [entry_id for entry_id, _ in read]
    assert [entry_id for entry_id, _ in redis_client.xrange(stream)] == unacked
    settings.SECKILL_CLAIM_IDLE_MS = 0  # the crashed drainer's entries are reclaimable now
    drain_all()  # and they are still there to be reclaimed and persisted
    assert VoucherOrder.objects.count() == 32


@pytest.mark.django_db
def test_a_poll_reads_only_new_entries_and_a_recovering_one_the_unacked_too(
    sale, redis_client
) -> None:
    shard_no = shard.shard_of(sale.id)
    _accept(sale, 3)
    # This shard's drainer read them, then died before persisting: they wait, unacked.
    redis_client.xreadgroup(
        shard.GROUP, shard.consumer_name(shard_no), {keys.seckill_orders(shard_no): ">"}, count=3
    )
    seckill.voucher_seckill(user_id=UserFactory().id, voucher_id=sale.id)

    assert drain.drain_shard(shard_no) == 1  # the new order only
    assert drain.drain_shard(shard_no) == 0
    assert _stream_state(sale, redis_client)["pending"] == 3

    assert drain.drain_shard(shard_no, recover=True) == 3
    assert VoucherOrder.objects.count() == 4
    assert _stream_state(sale, redis_client) == {"pending": 0, "dead": 0}


@pytest.mark.django_db(transaction=True)  # the task closes its connection after a failure
def test_a_drain_run_recovers_first_and_again_after_a_failure(
    sale, redis_client, settings, monkeypatch
) -> None:
    from django.db import OperationalError

    from vouchers.tasks import drain_seckill_orders

    shard_no = shard.shard_of(sale.id)
    accepted = _accept(sale, 3)
    # An earlier drainer read these and died: only a recovering read finds them again.
    redis_client.xreadgroup(
        shard.GROUP, shard.consumer_name(shard_no), {keys.seckill_orders(shard_no): ">"}, count=3
    )
    accepted.append(seckill.voucher_seckill(user_id=UserFactory().id, voucher_id=sale.id))
    batches: list[int] = []
    real_persist = drain.persist

    def database_blip(orders):
        batches.append(len(orders))
        if len(batches) == 1:
            raise OperationalError("(2013) Lost connection to MySQL server during query")
        return real_persist(orders)

    monkeypatch.setattr(drain, "persist", database_blip)
    # The failed pass backs off 1 s, then retries: room for that on a slow machine.
    settings.SECKILL_DRAIN_LOOP_SECONDS = 3

    assert drain_seckill_orders() == 4

    # The first pass read the dead drainer's three and the new one; the pass after the
    # failure read all four again (nothing new came in between).
    assert batches == [4, 4]
    assert sorted(VoucherOrder.objects.values_list("id", flat=True)) == sorted(accepted)
    assert _stream_state(sale, redis_client) == {"pending": 0, "dead": 0}


@pytest.mark.django_db
def test_redelivery_never_creates_a_second_order(sale, redis_client) -> None:
    accepted = _accept(sale, 5)
    stream = keys.seckill_orders(shard.shard_of(sale.id))
    entries = redis_client.xrange(stream)
    drain_all()
    # As if the drainer died after its commit but before its XACK: the entries come back.
    for _entry_id, fields in entries:
        redis_client.xadd(stream, fields)

    drain_all()

    assert VoucherOrder.objects.count() == 5
    assert sorted(VoucherOrder.objects.values_list("id", flat=True)) == sorted(accepted)
    assert Voucher.objects.get(pk=sale.pk).stock == 5000 - 5


def _start_drain() -> None:
    from dianping.celery import app

    app.send_task("vouchers.tasks.drain_seckill_orders")


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_drain_worker_killed_mid_batch_loses_and_duplicates_nothing(sale, redis_client) -> None:
    accepted = _accept(sale, 1000)
    # Two orders per transaction: 500 commits, so the kill lands mid-drain however
    # late this process gets to run again (a transient state polled for could be missed).
    worker = start_worker(current_database_url(), SECKILL_DRAIN_BATCH="2")
    try:
        _start_drain()
        wait_until(VoucherOrder.objects.exists, timeout=60, interval=0.005)
    finally:
        kill(worker, signal.SIGKILL)  # mid-sale, mid-batch: no chance to ack or clean up
    assert VoucherOrder.objects.count() < 1000

    worker = start_worker(current_database_url())
    try:
        # Like beat: start a drain every second; the dead worker's shard lock runs out
        # within its 10 s lease, and a later run takes the shard over.
        def drained() -> bool:
            _start_drain()
            return VoucherOrder.objects.count() == 1000

        wait_until(drained, timeout=120, interval=1)
        wait_until(lambda: _stream_state(sale, redis_client)["pending"] == 0, timeout=30)
    finally:
        kill(worker, signal.SIGKILL)  # the drain task loops on; no need to wait for it

    assert sorted(VoucherOrder.objects.values_list("id", flat=True)) == sorted(accepted)
    assert Voucher.objects.get(pk=sale.pk).stock == 5000 - 1000
    assert _stream_state(sale, redis_client)["dead"] == 0


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_while_the_database_is_down_nothing_is_acked_and_all_lands_later(
    sale, redis_client
) -> None:
    accepted = _accept(sale, 200)
    stream = keys.seckill_orders(shard.shard_of(sale.id))
    worker = start_worker(unreachable_database_url())
    try:
        _start_drain()
        # The worker has read the entries (they are pending in its group) but cannot persist.
        wait_until(lambda: redis_client.xpending(stream, shard.GROUP)["pending"] > 0, timeout=60)
        assert redis_client.xpending(stream, shard.GROUP)["pending"] <= 200
    finally:
        kill(worker, signal.SIGKILL)  # the drain task loops on; no need to wait for it
    assert VoucherOrder.objects.count() == 0
    assert redis_client.xlen(keys.seckill_dead_letters(shard.shard_of(sale.id))) == 0

    drain_all()  # the database is back

    assert sorted(VoucherOrder.objects.values_list("id", flat=True)) == sorted(accepted)
    assert _stream_state(sale, redis_client) == {"pending": 0, "dead": 0}


@pytest.mark.slow
@pytest.mark.skipif(bool(os.environ.get("TEST_REDIS_URL")), reason="restarts the local Redis")
@pytest.mark.django_db(transaction=True)
def test_redis_restart_mid_sale_loses_no_accepted_order_and_oversells_nothing(
    sale, redis_client
) -> None:
    users = users_ensure(phones=[f"100{i:08d}" for i in range(100)])
    before = [seckill.voucher_seckill(user_id=u.id, voucher_id=sale.id) for u in users[:50]]

    redis_client.shutdown()  # a clean restart: the AOF is fsynced on the way down
    wait_until(lambda: not _ping(redis_client), timeout=30)
    subprocess.run([str(ROOT / "scripts" / "redis.sh"), "start", "test"], check=True, timeout=60)
    wait_until(lambda: _ping(redis_client), timeout=30)

    assert redis_client.get(shard.stock_key(sale.id)) == b"4950"
    with pytest.raises(ServiceUnavailable):  # paused until the shard is verified (heal.py)
        seckill.voucher_seckill(user_id=users[50].id, voucher_id=sale.id)
    drain_task_once()  # the drain verifies it, then drains
    with pytest.raises(Conflict) as refused:
        seckill.voucher_seckill(user_id=users[0].id, voucher_id=sale.id)
    assert refused.value.code == "duplicate_order"
    after = [seckill.voucher_seckill(user_id=u.id, voucher_id=sale.id) for u in users[50:]]
    drain_all()

    assert sorted(VoucherOrder.objects.values_list("id", flat=True)) == sorted(before + after)
    assert Voucher.objects.get(pk=sale.pk).stock == 5000 - 100
    assert redis_client.get(shard.stock_key(sale.id)) == b"4900"


def _ping(client) -> bool:
    try:
        return bool(client.ping())
    except Exception:
        return False


@pytest.mark.django_db
def test_a_drain_run_trims_what_an_earlier_release_left_so_health_is_ok(sale, redis_client) -> None:
    """A stream drained by a release that kept its last delivered entry (before the trim
    went past it) read as a stalled drain on /api/health until the next order."""
    stream = keys.seckill_orders(shard.shard_of(sale.id))
    # An entry delivered and acked but left in the stream, as that release left its last.
    redis_client.xadd(stream, {"voucher": sale.id})
    ((_, [(entry_id, _)]),) = redis_client.xreadgroup(shard.GROUP, "old", {stream: ">"})
    redis_client.xack(stream, shard.GROUP, entry_id)
    assert redis_client.xlen(stream) == 1

    drain_task_once()

    assert redis_client.xlen(stream) == 0
    assert drain.oldest_waiting_seconds() is None


@pytest.mark.django_db
def test_a_drain_run_on_a_redis_that_lost_its_groups_still_drains(sale, redis_client) -> None:
    """A failover before the group replicated (or a restart without it) leaves streams
    with no consumer group: the recovering pass's trim made every drain run fail with
    NOGROUP, so nothing was stored again; it now makes the groups and goes on."""
    _accept(sale, 3)  # lost with the streams, as an unreplicated write is
    for shard_no in range(settings.SECKILL_SHARDS):
        redis_client.delete(keys.seckill_orders(shard_no))  # the groups go with the streams
    later = [  # accepted after the loss, into a stream with no group
        seckill.voucher_seckill(user_id=UserFactory().id, voucher_id=sale.id) for _ in range(2)
    ]

    drain_task_once()

    assert sorted(VoucherOrder.objects.values_list("id", flat=True)) == sorted(later)
    assert _stream_state(sale, redis_client) == {"pending": 0, "dead": 0}
