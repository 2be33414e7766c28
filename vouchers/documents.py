"""Vouchers and orders in their API shapes, built from database rows (`.values()`) for
the hot reads: a shop's vouchers and "my vouchers". The serializers' output key for key
(tests/vouchers/test_documents.py compares them on every kind of row), at a fraction of
their cost: DRF's nested serializers spent most of those reads' CPU."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from rest_framework import serializers

from .models import VoucherOrder, sale_status

# VoucherSerializer's fields, in its order (`status` is computed, `shop_id` the column).
VOUCHER_COLUMNS = (
    "id",
    "shop_id",
    "title",
    "sub_title",
    "rules",
    "pay_value",
    "actual_value",
    "type",
    "discount_type",
    "amount_condition",
    "discount_amount",
    "discount_rate",
    "max_discount",
    "per_user_limit",
    "valid_days",
    "stock",
    "begin_time",
    "end_time",
    "challenge",
)
_VOUCHER_TIMES = ("begin_time", "end_time")
ORDER_TIMES = ("created_at", "paid_at", "expires_at", "used_at", "cancelled_at", "refunded_at")
# An order's columns, its voucher's through the join (MyVoucherSerializer's shape).
ORDER_COLUMNS = (
    "id", "voucher_id", "status", *ORDER_TIMES, *(f"voucher__{c}" for c in VOUCHER_COLUMNS),
    "voucher__status", "voucher__shop__name",
)  # fmt: skip
_time = serializers.DateTimeField()  # DRF's own rendering: the current zone, ISO 8601


def _iso(value: datetime | None) -> str | None:
    return None if value is None else _time.to_representation(value)


def voucher_document(row: dict[str, Any], *, now: datetime, prefix: str = "") -> dict[str, Any]:
    """A voucher as VoucherSerializer shows it, from a row of VOUCHER_COLUMNS and `status`
    (named with `prefix`, as an order's join names them)."""
    doc = {column: row[prefix + column] for column in VOUCHER_COLUMNS}
    for column in _VOUCHER_TIMES:
        doc[column] = _iso(row[prefix + column])
    doc["status"] = sale_status(
        kind=row[prefix + "type"],
        stored=row[prefix + "status"],
        begin=row[prefix + "begin_time"],
        end=row[prefix + "end_time"],
        now=now,
    )
    return doc


def my_voucher_document(row: dict[str, Any], *, now: datetime) -> dict[str, Any]:
    """An order as MyVoucherSerializer shows it, from a row of ORDER_COLUMNS."""
    return my_voucher_now(
        order_document(row),
        voucher_document(row, now=now, prefix="voucher__"),
        shop_name=row["voucher__shop__name"],
        now=now,
    )


def order_document(row: dict[str, Any]) -> dict[str, Any]:
    """An order's own fields as stored (its id still a number, its status before the
    clock's say), from a row of ORDER_COLUMNS: what the user's cached orders hold."""
    doc = {"id": row["id"], "voucher_id": row["voucher_id"], "status": row["status"]}
    for column in ORDER_TIMES:
        doc[column] = _iso(row[column])
    return doc


def my_voucher_now(
    order: dict[str, Any], voucher: dict[str, Any], *, shop_name: str, now: datetime
) -> dict[str, Any]:
    """MyVoucherSerializer's shape from an `order_document`, its voucher's document and
    its shop's name: a paid coupon past its validity is `expired`."""
    shop = {"id": voucher["shop_id"], "name": shop_name}
    doc = {**order, "id": str(order["id"]), "voucher": voucher, "shop": shop}
    if doc["status"] == VoucherOrder.Status.PAID and expired(order, now):
        doc["status"] = "expired"
    return doc


def expired(order: dict[str, Any], now: datetime) -> bool | None:
    """Whether an `order_document` is past its validity; None when it has none."""
    expires_at = order["expires_at"]
    return None if expires_at is None else datetime.fromisoformat(expires_at) <= now


# "My vouchers" tabs: which of a user's orders (`order_document`s) each shows at `now`,
# in the client's order; coupons.selectors' database query filters the same way.
IN_TAB = {
    "unused": lambda order, now: (
        order["status"] == VoucherOrder.Status.PAID and expired(order, now) is False
    ),
    "used": lambda order, now: order["status"] == VoucherOrder.Status.USED,
    "expired": lambda order, now: (
        order["status"] == VoucherOrder.Status.PAID and expired(order, now) is True
    ),
    "unpaid": lambda order, now: order["status"] == VoucherOrder.Status.UNPAID,
    "cancelled": lambda order, now: order["status"] == VoucherOrder.Status.CANCELLED,
    "refunded": lambda order, now: order["status"] == VoucherOrder.Status.REFUNDED,
}


def voucher_columns() -> tuple[str, ...]:
    """What a voucher row needs: its columns and its stored status."""
    return (*VOUCHER_COLUMNS, "status")
