"""The flash sale heals itself after Redis lost or rolled back its state (issue 23):
the shard's live marker names the Redis process that verified it, the sale pauses (503)
under any other, and the drain rewrites the shard from the database and the pending
orders, then marks it live, with no operator command."""

from __future__ import annotations

import uuid

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.factories import UserFactory
from tests.helpers import PrivateRedis, client_for
from tests.vouchers.sales import drain_all, drain_task_once, start_sale
from toolkit import identity
from toolkit.redis import keys as toolkit_keys
from vouchers import keys
from vouchers.models import Voucher, VoucherOrder
from vouchers.sale import heal, shard


def _buy(user, sale):
    return client_for(user).post(f"/api/vouchers/{sale.id}/seckill")


@pytest.mark.django_db(transaction=True)
def test_a_rolled_back_shard_pauses_the_sale_until_the_drain_heals_it(
    redis_client, fake_clock
) -> None:
    sale = start_sale(stock=10)
    early, late, newcomer = UserFactory(), UserFactory(), UserFactory()
    assert _buy(early, sale).status_code == 200
    drain_all()  # persisted: the database has it
    assert _buy(late, sale).status_code == 200  # accepted, still pending in the stream
    # Redis restarts from an AOF that lost the last writes: the stock and buyers are as
    # before the first sale (the pending order survived in the stream), and the live
    # marker names the process before the restart.
    shard_no = shard.shard_of(sale.id)
    redis_client.set(shard.stock_key(sale.id), 10)
    redis_client.delete(shard.buyers_key(sale.id))
    redis_client.set(keys.seckill_live(shard_no), "a-run-id-of-the-process-before")

    paused = _buy(newcomer, sale)
    assert paused.status_code == 503  # never a 200 for a unit the database may not have
    assert paused.headers["Retry-After"] == "1"
    assert _buy(early, sale).status_code == 503  # nor a second order for an old buyer
    assert redis_client.get(shard.stock_key(sale.id)) == b"10"  # the pause sold nothing
    assert redis_client.hlen(shard.buyers_key(sale.id)) == 0

    drain_task_once()  # the next drain finds the marker gone and heals

    assert shard.unverified([shard_no]) == []
    assert redis_client.get(shard.stock_key(sale.id)) == b"8"
    assert _buy(early, sale).json()["code"] == "duplicate_order"
    assert _buy(late, sale).json()["code"] == "duplicate_order"
    assert _buy(newcomer, sale).status_code == 200
    drain_all()
    database_stock = Voucher.objects.get(pk=sale.pk).stock
    orders = VoucherOrder.objects.filter(voucher=sale)
    assert (database_stock, orders.count()) == (7, 3)  # no unit sold twice, no order lost
    assert redis_client.get(shard.stock_key(sale.id)) == b"7"


def test_a_marker_goes_stale_on_a_restart_and_on_a_replica(tmp_path) -> None:
    """What the marker's promise rests on: it names the Redis process that verified the
    shard. Restarted from its AOF, Redis still has the key but runs under another run
    id; a replica has a copy of it, and another run id too."""
    (tmp_path / "master").mkdir()
    (tmp_path / "replica").mkdir()
    master = PrivateRedis(tmp_path / "master")
    master.start()
    replica = PrivateRedis(tmp_path / "replica", "--replicaof", "127.0.0.1", str(master.port))
    replica.start()
    replica.wait_replicating()
    marker = keys.seckill_live(0)

    def live(client) -> int:
        return client.eval(shard._IS_LIVE.source, 1, marker)

    try:
        client = master.client()
        assert live(client) == 0  # never verified
        client.eval(heal._MARK_LIVE.source, 1, marker)
        assert live(client) == 1
        synced = client.pipeline(transaction=False)  # one connection: WAIT covers its write
        synced.set("after-the-marker", 1)
        synced.wait(1, 5000)
        assert synced.execute()[1] == 1  # the replica has the marker now
        assert replica.client().exists(marker) == 1
        assert live(replica.client()) == 0

        master.kill()
        master.start()

        assert client.exists(marker) == 1  # kept by the AOF
        assert live(client) == 0  # but verified by a process that is gone
    finally:
        replica.kill()
        master.kill()


@pytest.mark.django_db
def test_reconcile_fix_verifies_every_shard_for_a_start_without_a_worker(
    redis_client, settings
) -> None:
    """`make run`, the smoke test and the benchmarks sell before any drain has run."""
    redis_client.flushdb()  # a fresh Redis: nothing verified
    shards = list(range(settings.SECKILL_SHARDS))
    assert shard.unverified(shards) == shards

    call_command("reconcile_seckill", "--fix")

    assert shard.unverified(shards) == []


@pytest.mark.django_db(transaction=True)
def test_a_sale_redis_of_another_database_is_neither_drained_nor_healed(
    redis_client, fake_clock
) -> None:
    """Decision 292: the sale's Redis emptied mid-run and claimed meanwhile by another
    database's processes holds that database's stock and orders. The drain stores none
    of them here and heals nothing from this database; emptied of that identity, the
    Redis is claimed back at the next run, healed and drained."""
    sale = start_sale(stock=10)
    assert _buy(UserFactory(), sale).status_code == 200  # accepted, pending in the stream
    shard_no = shard.shard_of(sale.id)
    redis_client.delete(keys.seckill_live(shard_no))  # a heal would rewrite the shard
    redis_client.set(toolkit_keys.db_identity(), str(uuid.uuid4()))

    assert drain_task_once() == 0
    with pytest.raises(identity.RedisOfAnotherDatabase):
        heal.shard_heal(shard_no)
    with pytest.raises(CommandError, match="holds the data of another database"):
        call_command("reconcile_seckill", "--fix")

    assert VoucherOrder.objects.count() == 0
    assert shard.unverified([shard_no]) == [shard_no]  # still paused
    assert redis_client.get(shard.stock_key(sale.id)) == b"9"

    redis_client.delete(toolkit_keys.db_identity())
    drain_task_once()

    assert redis_client.get(toolkit_keys.db_identity()).decode() == identity.database_identity()
    assert shard.unverified([shard_no]) == []
    assert VoucherOrder.objects.count() == 1
    assert Voucher.objects.get(pk=sale.pk).stock == 9
