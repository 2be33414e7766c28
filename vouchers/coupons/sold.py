"""A shop's `sold`: how many of its vouchers' coupons are paid (or used since). The
writers that move it (a payment, a free claim, a drained free order, a refund) only note
the voucher after commit; a beat job counts the noted vouchers' shops again from the
orders. A wave of payments for one shop so costs one count and one cache eviction every
few seconds, not a lock on the shop's row and an eviction per payment."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from django.db.models import Count

from shops.services import sold_save
from toolkit.redis.client import get_redis

from .. import keys
from ..models import Voucher, VoucherOrder

COUNTED = (VoucherOrder.Status.PAID, VoucherOrder.Status.USED)


def sold_changed(voucher_ids: Iterable[int]) -> None:
    """In a writer's transaction: the vouchers' shops are counted again once it commits."""
    ids = sorted(set(voucher_ids))
    if ids:
        transaction.on_commit(lambda: get_redis().sadd(keys.sold_changed(), *ids), robust=True)


def count_sold(*, limit: int = 500) -> int:
    """Count `sold` again for the shops of up to `limit` noted vouchers; returns how many
    shops. Noted vouchers taken but not counted (the database failed) are noted again."""
    client = get_redis()
    voucher_ids = [int(v) for v in client.spop(keys.sold_changed(), limit) or ()]
    if not voucher_ids:
        return 0
    try:
        shop_ids = set(Voucher.objects.filter(pk__in=voucher_ids).values_list("shop_id", flat=True))
        sold = dict.fromkeys(shop_ids, 0)
        rows = (
            VoucherOrder.objects.filter(voucher__shop_id__in=shop_ids, status__in=COUNTED)
            .values("voucher__shop_id")
            .annotate(n=Count("id"))
        )
        sold.update((row["voucher__shop_id"], row["n"]) for row in rows)
        sold_save(sold=sold)
    except BaseException:
        client.sadd(keys.sold_changed(), *voucher_ids)
        raise
    return len(sold)


def count_all_sold() -> int:
    """Every shop's `sold` counted again (a repair); returns how many shops have vouchers."""
    sold_changed(Voucher.objects.values_list("id", flat=True))
    return count_sold(limit=Voucher.objects.count() or 1)
