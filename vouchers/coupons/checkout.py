"""Checkout at a shop (买单): pay a bill, optionally with one of the payer's coupons (its
refund is in refunds.py). An Idempotency-Key makes a retried checkout return the first
one's order."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils.translation import gettext

from toolkit import clock
from toolkit.errors import Conflict, NotFound
from toolkit.redis import ids
from toolkit.transactions import retry_on_lock_conflict

from ..errors import Code
from ..models import ShopOrder, VoucherOrder, WriteOff
from .lifecycle import Actor, Move, refusal
from .usage import coupon_discount, coupon_take, write_off


@retry_on_lock_conflict
def shop_order_create(
    *,
    user_id: int,
    shop_id: int,
    amount: int,
    coupon_id: int | None = None,
    idempotency_key: str | None = None,
) -> tuple[ShopOrder, bool]:
    """A paid shop order; returns it and whether it is new. With a coupon, the coupon moves
    paid -> used and its write-off is written in the same transaction. A key already used
    by the caller returns that order, writing nothing (409 if the request differs)."""
    if idempotency_key and (earlier := _keyed(user_id, idempotency_key)) is not None:
        return _replayed(earlier, shop_id=shop_id, amount=amount, coupon_id=coupon_id), False
    try:
        with transaction.atomic():
            return _create(user_id, shop_id, amount, coupon_id, idempotency_key), True
    except (IntegrityError, Conflict):
        # The same key, sent twice at once: the other request committed first, and this
        # one lost the key's unique index, or its coupon ("used" by that very order).
        earlier = _keyed(user_id, idempotency_key) if idempotency_key else None
        if earlier is None:
            raise
        return _replayed(earlier, shop_id=shop_id, amount=amount, coupon_id=coupon_id), False


def _create(
    user_id: int, shop_id: int, amount: int, coupon_id: int | None, key: str | None
) -> ShopOrder:
    order = ShopOrder(
        id=ids.next_id("shop-order"),
        user_id=user_id,
        shop_id=shop_id,
        amount=amount,
        payable=amount,
        created_at=clock.now(),
        idempotency_key=key or None,
    )
    coupon = _coupon(user_id, coupon_id, order) if coupon_id is not None else None
    if coupon is not None:
        order.discount = coupon_discount(coupon, shop_id=shop_id, amount=amount)
        order.payable = amount - order.discount
        order.created_at = coupon_take(coupon, by=Actor.PAYER)  # before the order row points at it
    order.coupon = coupon
    order.save(force_insert=True)
    if coupon is not None:
        write_off(
            coupon=coupon,
            at=order.created_at,
            discount=order.discount,
            kind=WriteOff.Kind.CHECKOUT,
            by_user_id=user_id,
            shop_order=order,
        )
    return order


def _coupon(user_id: int, coupon_id: int, order: ShopOrder) -> VoucherOrder:
    """The caller's coupon, if its state lets it be used now (404 for anybody else's)."""
    coupon = (
        VoucherOrder.objects.select_related("voucher").filter(pk=coupon_id, user_id=user_id).first()
    )
    if coupon is None:
        raise NotFound(gettext("No such coupon."), code=Code.COUPON_NOT_FOUND)
    if (refused := refusal(Move.USE, coupon, order.created_at)) is not None:
        raise refused
    return coupon


def shop_order_keyed(*, user_id: int, idempotency_key: str) -> bool:
    """Whether the caller already has an order under this key: a retry, which writes nothing
    (its order again, or a 409), so the checkout limit lets it through (decision 282)."""
    return ShopOrder.objects.filter(user_id=user_id, idempotency_key=idempotency_key).exists()


def _keyed(user_id: int, key: str) -> ShopOrder | None:
    return ShopOrder.objects.filter(user_id=user_id, idempotency_key=key).first()


def _replayed(order: ShopOrder, *, shop_id: int, amount: int, coupon_id: int | None) -> ShopOrder:
    if (order.shop_id, order.amount, order.coupon_id) != (shop_id, amount, coupon_id):
        raise Conflict(
            gettext("This Idempotency-Key was used for a different checkout."),
            code=Code.IDEMPOTENCY_KEY_REUSED,
        )
    return order
