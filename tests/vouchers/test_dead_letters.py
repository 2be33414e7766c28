"""Dead-lettered orders: listed for operators, replayed once the cause is fixed, never
replayed when the unit they held was given back (that would sell it twice)."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.core.management import call_command

from tests.factories import UserFactory
from tests.vouchers.sales import drain_all, start_sale
from vouchers import keys
from vouchers.coupons.jobs import order_jobs
from vouchers.models import Voucher, VoucherOrder
from vouchers.sale import dead_letters, reconcile, seckill, shard
from vouchers.sale_orders import pending_field


@pytest.fixture
def broken_sale(db, fake_clock, redis_client):
    """A sale whose three accepted orders were dead-lettered: the database stock was
    set below what Redis had sold (by a bad hand edit, say)."""
    sale = start_sale(stock=100)
    accepted = [
        seckill.voucher_seckill(user_id=UserFactory().id, voucher_id=sale.id) for _ in range(3)
    ]
    Voucher.objects.filter(pk=sale.pk).update(stock=0)
    for _ in range(settings.SECKILL_MAX_DELIVERIES):
        drain_all()
    assert redis_client.xlen(keys.seckill_dead_letters(shard.shard_of(sale.id))) == 3
    assert not VoucherOrder.objects.exists()
    return sale, accepted


def _due(redis_client) -> set[int]:
    return {int(member) for member in redis_client.zrange(order_jobs().due_key, 0, -1)}


def test_letters_list_their_orders_and_reasons(broken_sale, capsys) -> None:
    sale, accepted = broken_sale

    letters = dead_letters.dead_letters()

    orders = [letter.order() for letter in letters]
    assert sorted(order.order_id for order in orders if order) == sorted(accepted)
    assert None not in orders
    assert all("database stock below" in letter.reason for letter in letters)
    call_command("seckill_dead_letters")
    out = capsys.readouterr().out
    assert f"order {accepted[0]} " in out
    assert f"voucher {sale.id}" in out
    assert "3 dead letter(s)" in out


def test_a_replay_before_the_cause_is_fixed_keeps_every_letter(broken_sale, redis_client) -> None:
    sale, _ = broken_sale

    outcome = dead_letters.replay()

    assert outcome.replayed == []
    assert len(outcome.kept) == 3
    assert all(why.startswith("still failing: StockMismatch") for _, why in outcome.kept)
    assert redis_client.xlen(keys.seckill_dead_letters(shard.shard_of(sale.id))) == 3
    assert not VoucherOrder.objects.exists()


def test_a_replay_after_the_fix_persists_each_order_once(broken_sale, redis_client, capsys) -> None:
    sale, accepted = broken_sale
    Voucher.objects.filter(pk=sale.pk).update(stock=100)  # the operator restores the stock
    # An older drainer that died between dead-lettering and its cleanup left one behind.
    left = dead_letters.dead_letters()[0].order()
    assert left is not None
    redis_client.hset(
        keys.seckill_pending(shard.shard_of(sale.id)),
        pending_field(left.order_id),
        f"{left.user_id}:{sale.id}",
    )

    call_command("seckill_dead_letters", "--replay")

    assert "3 replayed, 0 kept" in capsys.readouterr().out
    assert sorted(VoucherOrder.objects.values_list("id", flat=True)) == sorted(accepted)
    assert Voucher.objects.get(pk=sale.pk).stock == 97
    assert redis_client.get(shard.stock_key(sale.id)) == b"97"
    assert reconcile.seckill_drift(voucher_id=sale.id)[0].clean  # nothing counted twice
    assert _due(redis_client) >= set(accepted)  # unpaid orders still time out
    assert dead_letters.dead_letters() == []
    assert dead_letters.replay().replayed == []  # nothing left: a second replay is a no-op
    assert VoucherOrder.objects.count() == 3


def test_a_letter_whose_unit_was_released_is_not_replayed(broken_sale, redis_client) -> None:
    sale, _ = broken_sale
    Voucher.objects.filter(pk=sale.pk).update(stock=100)
    # The operator chose to give the units back instead: reconcile makes Redis match the
    # database, which has no order for these buyers.
    reconcile.seckill_repair(sale.id)
    assert redis_client.get(shard.stock_key(sale.id)) == b"100"

    outcome = dead_letters.replay()

    assert outcome.replayed == []
    assert all("released" in why for _, why in outcome.kept)
    assert not VoucherOrder.objects.exists()
    assert Voucher.objects.get(pk=sale.pk).stock == 100  # no unit sold twice
    assert len(dead_letters.dead_letters()) == 3  # kept for the record


def test_an_unreadable_letter_is_kept_and_does_not_stop_the_others(
    broken_sale, redis_client
) -> None:
    sale, accepted = broken_sale
    shard_no = shard.shard_of(sale.id)
    redis_client.xadd(keys.seckill_dead_letters(shard_no), {"user": "x", "reason": "malformed"})
    Voucher.objects.filter(pk=sale.pk).update(stock=100)

    outcome = dead_letters.replay(shard=shard_no)

    assert sorted(outcome.replayed) == sorted(accepted)
    assert [why for _, why in outcome.kept] == ["unreadable: no order, user or voucher"]
    assert redis_client.xlen(keys.seckill_dead_letters(shard_no)) == 1
