"""toolkit/bulk.py: a multi-row INSERT that writes exactly what bulk_create writes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.db import IntegrityError, connection, transaction

from tests.factories import UserFactory, VoucherFactory
from toolkit.bulk import insert_rows
from vouchers.models import Voucher, VoucherOrder

pytestmark = pytest.mark.django_db

CREATED = datetime(2026, 11, 24, 15, 30, 12, tzinfo=UTC)


def _row(order_id: int, user_id: int, voucher_id: int, *, paid: bool) -> dict[str, object]:
    return {
        "id": order_id,
        "user_id": user_id,
        "voucher_id": voucher_id,
        "created_at": CREATED,
        "expires_at": CREATED + timedelta(days=30),
        "status": VoucherOrder.Status.PAID if paid else VoucherOrder.Status.UNPAID,
        "paid_at": CREATED if paid else None,
        "redeem_code": f"CODE{order_id}" if paid else None,
    }  # live_slot left out: its default (1) applies, as it would in bulk_create


def _stored(order_id: int) -> dict[str, object]:
    row = VoucherOrder.objects.filter(pk=order_id).values().get()
    return {k: v for k, v in row.items() if k not in ("id", "user_id", "redeem_code")}


@pytest.mark.parametrize("paid", [False, True], ids=["unpaid", "paid"])
def test_rows_read_back_as_bulk_create_writes_them(paid: bool) -> None:
    voucher = VoucherFactory()
    by_orm, by_insert = UserFactory(), UserFactory()
    VoucherOrder.objects.bulk_create([VoucherOrder(**_row(1, by_orm.id, voucher.id, paid=paid))])

    insert_rows(VoucherOrder, [_row(2, by_insert.id, voucher.id, paid=paid)])

    assert _stored(2) == _stored(1)
    assert _stored(2)["live_slot"] == 1
    assert _stored(2)["created_at"] == CREATED  # aware UTC in, the same instant out


def test_more_rows_than_one_statement_takes_are_all_written() -> None:
    voucher = VoucherFactory()
    users = UserFactory.create_batch(3)
    rows = [
        _row(n, users[n % 3].id, voucher.id, paid=False) | {"live_slot": n} for n in range(1, 401)
    ]
    if connection.vendor == "sqlite":  # 12 parameters a row: several statements there
        assert connection.ops.bulk_batch_size(VoucherOrder._meta.concrete_fields, rows) < 400

    insert_rows(VoucherOrder, rows)

    assert VoucherOrder.objects.count() == 400
    assert set(VoucherOrder.objects.values_list("id", flat=True)) == set(range(1, 401))


def test_a_refused_row_writes_none_of_its_batch() -> None:
    voucher = VoucherFactory()
    user = UserFactory()
    insert_rows(VoucherOrder, [_row(7, user.id, voucher.id, paid=False)])
    batch = [
        _row(8, user.id, voucher.id, paid=False) | {"live_slot": 2},
        _row(7, user.id, voucher.id, paid=False),  # 7 again: a duplicate primary key
    ]

    with pytest.raises(IntegrityError), transaction.atomic():
        insert_rows(VoucherOrder, batch)

    assert list(VoucherOrder.objects.values_list("id", flat=True)) == [7]


def test_models_with_auto_now_fields_are_refused() -> None:
    with pytest.raises(ValueError, match="auto_now"):
        insert_rows(Voucher, [{"title": "x"}])


def test_no_rows_is_no_statement(django_assert_num_queries) -> None:
    with django_assert_num_queries(0):
        insert_rows(VoucherOrder, [])
