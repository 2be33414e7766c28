"""Refunds: a coupon's money back to its owner (its unit back on sale while the voucher is
on sale), and a checkout's bill back to its payer (its coupon given back)."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext

from toolkit import clock
from toolkit.errors import NotFound
from toolkit.transactions import retry_on_lock_conflict

from ..caches import orders_changed
from ..errors import Code
from ..models import ShopOrder, VoucherOrder
from .jobs import order_jobs, release_after_commit
from .lifecycle import (
    Actor,
    Move,
    locked_voucher,
    move,
    refund_returns_unit,
    refused,
    return_to_stock,
)
from .selectors import order_owned, order_owner
from .sold import sold_changed
from .usage import coupon_give_back

Status = VoucherOrder.Status


@retry_on_lock_conflict
def order_refund(*, order_id: int, user_id: int) -> VoucherOrder:
    """The buyer returns a paid, unused, unexpired coupon. While its voucher is still on
    sale the unit goes back on sale and the buyer may take it again; after a flash sale
    ended it does not. Refunding a refunded order answers it unchanged."""
    now = clock.now()
    owner = order_owner(order_id=order_id, user_id=user_id)
    if owner is not None:
        voucher_id = owner[0]
        with transaction.atomic():
            voucher = locked_voucher(voucher_id)
            mine = VoucherOrder.objects.filter(pk=order_id, user_id=user_id)
            if move(mine, Move.REFUND, by=Actor.OWNER, now=now):
                orders_changed([user_id])
                sold_changed([voucher_id])
                if refund_returns_unit(voucher, now):
                    return_to_stock(voucher)
                if voucher.is_seckill:
                    # The release's retry, should the one right after commit fail.
                    order_jobs().schedule(str(order_id), delay=settings.ORDER_RELEASE_RETRY)
                    transaction.on_commit(lambda: release_after_commit(order_id), robust=True)
    order = order_owned(order_id=order_id, user_id=user_id)
    if order.status == Status.REFUNDED:
        return order
    raise refused(Move.REFUND, order, now)


@retry_on_lock_conflict
def shop_order_refund(*, shop_order_id: int, user_id: int) -> ShopOrder:
    """paid -> refunded, once (a conditional UPDATE); its coupon comes back as
    `coupon_give_back` says. Refunding a refunded order answers it unchanged."""
    now = clock.now()
    with transaction.atomic():
        refunded = ShopOrder.objects.filter(
            pk=shop_order_id, user_id=user_id, status=ShopOrder.Status.PAID
        ).update(status=ShopOrder.Status.REFUNDED, refunded_at=now)
        order = ShopOrder.objects.filter(pk=shop_order_id, user_id=user_id).first()
        if order is None:
            raise NotFound(gettext("No such shop order."), code=Code.SHOP_ORDER_NOT_FOUND)
        if refunded and order.coupon_id is not None:
            coupon_give_back(shop_order=order, now=now)
    return order
