"""The seam between the flash sale and the coupons: the one function through which the
sale's drain (and its dead-letter replay) hands over the orders it accepted, to be
stored as coupons. What both sides share besides lives in vouchers/sale_orders.py; the
coupons import nothing from vouchers/sale/ (decision 455)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from django.db import transaction
from django.db.models import F

from toolkit.bulk import insert_rows

from ..caches import orders_changed, vouchers_changed
from ..models import Voucher, VoucherOrder
from ..sale_orders import AcceptedOrder, IdCollision, StockMismatch, VoucherGone
from ..signals import records_written
from .lifecycle import new_order
from .sold import sold_changed


@transaction.atomic
def store_accepted(orders: Sequence[AcceptedOrder]) -> set[int]:
    """Store the orders the sale accepted, in one transaction; ones already stored are
    redeliveries. Returns the ids of those paid at once (a free voucher's): they need no
    pay timeout. Raises an OrderFault (vouchers/sale_orders.py) when the orders' own data
    is wrong; the caller schedules the pay timeouts once this has committed."""
    if not orders:
        return set()
    rows = VoucherOrder.objects.filter(id__in=[o.order_id for o in orders])
    known = {oid: (uid, vid) for oid, uid, vid in rows.values_list("id", "user_id", "voucher_id")}
    for order in orders:
        if order.order_id in known and known[order.order_id] != (order.user_id, order.voucher_id):
            # Same id, different order: never ack it as a "redelivery" (that would lose it).
            raise IdCollision(f"order id {order.order_id} already belongs to another order")
    fresh = [o for o in orders if o.order_id not in known]  # redelivered ones are done already
    terms: dict[int, tuple[int, int]] = {}  # voucher id -> (valid_days, pay_value)
    shops: dict[int, int] = {}  # voucher id -> shop id
    for vid, valid_days, pay_value, shop_id in Voucher.objects.filter(
        pk__in={o.voucher_id for o in orders}
    ).values_list("id", "valid_days", "pay_value", "shop_id"):
        terms[vid], shops[vid] = (valid_days, pay_value), shop_id
    if gone := {o.voucher_id for o in orders} - set(terms):
        raise VoucherGone(f"vouchers {sorted(gone)} no longer exist")
    # Stock first, vouchers in id order: the inserts below share-lock their voucher rows
    # (the foreign key), which a later exclusive lock on them could deadlock with.
    for voucher_id, units in sorted(Counter(o.voucher_id for o in fresh).items()):
        updated = Voucher.objects.filter(pk=voucher_id, stock__gte=units).update(
            stock=F("stock") - units
        )
        if not updated:
            raise StockMismatch(f"voucher {voucher_id}: database stock below {units}")
    insert_rows(VoucherOrder, [_order_row(o, *terms[o.voucher_id]) for o in fresh])
    vouchers_changed(o.voucher_id for o in fresh)  # their stock column moved
    orders_changed(o.user_id for o in fresh)
    # Stamped when accepted: a late drain adds to days that may have closed.
    records_written(VoucherOrder, [(shops[o.voucher_id], o.created_at) for o in fresh])
    sold_changed(o.voucher_id for o in fresh if terms[o.voucher_id][1] == 0)  # paid at once
    return {o.order_id for o in orders if terms[o.voucher_id][1] == 0}


def _order_row(order: AcceptedOrder, valid_days: int, pay_value: int) -> dict[str, Any]:
    return new_order(
        order_id=order.order_id,
        user_id=order.user_id,
        voucher_id=order.voucher_id,
        created_at=order.created_at,
        valid_days=valid_days,
        pay_value=pay_value,
    )
