""" "Remind me" on an upcoming flash sale: a row per user and sale, idempotent both ways."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError
from django.utils.translation import gettext

from toolkit import clock
from toolkit.errors import Conflict, NotFound
from vouchers.errors import Code as VoucherCode
from vouchers.models import Voucher

from .errors import Code
from .models import SaleWatch


def sale_watch(*, user_id: int, voucher_id: int) -> SaleWatch:
    """Watch a flash sale that has not started (409 otherwise); watching it again keeps
    the first watch (and whether its reminder went out)."""
    voucher = _voucher(voucher_id)
    if not voucher.is_seckill:
        raise Conflict(gettext("Only flash sales can be watched."), code=Code.NOT_A_SALE)
    if voucher.status_at(clock.now()) != Voucher.Status.PENDING:
        raise Conflict(gettext("This sale has already started."), code=Code.SALE_STARTED)
    try:
        return SaleWatch.objects.get_or_create(user_id=user_id, voucher_id=voucher_id)[0]
    except IntegrityError:  # the same user's request racing this one made it
        return SaleWatch.objects.get(user_id=user_id, voucher_id=voucher_id)


def sale_unwatch(*, user_id: int, voucher_id: int) -> bool:
    """Stop watching (idempotent); True if a watch was removed."""
    _voucher(voucher_id)
    deleted, _ = SaleWatch.objects.filter(user_id=user_id, voucher_id=voucher_id).delete()
    return bool(deleted)


def watched_sales(*, user_id: int) -> list[int]:
    """The ids of the not yet started sales the user watches, soonest first."""
    return list(
        SaleWatch.objects.filter(user_id=user_id, voucher__begin_time__gt=clock.now())
        .order_by("voucher__begin_time", "voucher_id")
        .values_list("voucher_id", flat=True)
    )


def _voucher(voucher_id: int) -> Any:
    voucher = Voucher.objects.filter(pk=voucher_id).first()
    if voucher is None:
        raise NotFound(gettext("No such voucher."), code=VoucherCode.VOUCHER_NOT_FOUND)
    return voucher
