"""The after-sale migrations move existing data: validity from the claim, live slots from
the old `live` flag, normal vouchers unlimited."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

# Shops before cities too: the shop below is written as that state knows it, without one.
BEFORE = [("vouchers", "0001_initial"), ("shops", "0008_shop_phone")]


def _latest():
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_existing_orders_and_vouchers_are_carried_over() -> None:
    latest = _latest()
    try:
        old = _migrate(BEFORE)
        shop_type = old.get_model("shops", "ShopType").objects.create(name="t")
        shop = old.get_model("shops", "Shop").objects.create(
            name="s", type=shop_type, address="a", x=121.0, y=31.0
        )
        user = old.get_model("accounts", "User").objects.create(username="u", phone="13700000000")
        Voucher = old.get_model("vouchers", "Voucher")
        created = datetime(2026, 1, 1, 8, 0, tzinfo=UTC)
        normal = Voucher.objects.create(
            shop=shop, title="n", pay_value=0, actual_value=1, valid_days=7, stock=0
        )
        sale = Voucher.objects.create(
            shop=shop,
            title="s",
            pay_value=1,
            actual_value=2,
            type="seckill",
            valid_days=3,
            stock=5,
            begin_time=created,
            end_time=created + timedelta(hours=1),
        )
        Order = old.get_model("vouchers", "VoucherOrder")
        Order.objects.create(
            id=1, user=user, voucher=sale, created_at=created, status="cancelled", live=None
        )
        Order.objects.create(
            id=2,
            user=user,
            voucher=sale,
            created_at=created,
            status="paid",
            live=True,
            paid_at=created + timedelta(days=1),
            expires_at=created + timedelta(days=4),
        )

        new = _migrate(latest)

        Voucher, Order = (
            new.get_model("vouchers", "Voucher"),
            new.get_model("vouchers", "VoucherOrder"),
        )
        assert Voucher.objects.get(pk=normal.pk).stock is None  # unlimited, as before
        assert Voucher.objects.get(pk=sale.pk).stock == 5
        assert Voucher.objects.get(pk=sale.pk).discount_type == "cash"
        rows = {o.id: (o.live_slot, o.expires_at) for o in Order.objects.all()}
        assert rows == {1: (None, created + timedelta(days=3)), 2: (1, created + timedelta(days=3))}
        codes = dict(Order.objects.values_list("id", "redeem_code"))
        assert codes[1] is None  # cancelled: nothing to redeem
        assert len(codes[2]) == 12  # paid before codes existed: it has one now
        assert codes[2].isdigit()
    finally:
        _migrate(latest)
