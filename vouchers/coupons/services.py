"""The owner's moves on an order after it is taken: pay and cancel (refunds.py gives money
back). Each is a move of lifecycle.py; only the one caller whose move won gives a unit
back: once to the database stock in its transaction, once to the Redis sale after
commit (jobs.release_after_commit). The pay timeout's cancel is in jobs.py."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils.translation import gettext

from toolkit import clock
from toolkit.errors import ServiceUnavailable
from toolkit.transactions import retry_on_lock_conflict

from ..caches import orders_changed
from ..models import VoucherOrder
from .jobs import cancel_unpaid, order_jobs, release_after_commit
from .lifecycle import Actor, Move, move, refused
from .selectors import order_owned
from .sold import sold_changed

Status = VoucherOrder.Status


@retry_on_lock_conflict
def order_pay(*, order_id: int, user_id: int) -> VoucherOrder:
    """Simulated payment: unpaid -> paid, with a redeem code. Paying a paid (or used)
    order again answers it unchanged."""
    now = clock.now()
    mine = VoucherOrder.objects.filter(pk=order_id, user_id=user_id)
    for _ in range(3):  # a retry only when the fresh redeem code was taken
        try:
            with transaction.atomic():
                paid = move(mine, Move.PAY, by=Actor.OWNER, now=now)
                if paid:
                    orders_changed([user_id])
                    transaction.on_commit(lambda: order_jobs().cancel(str(order_id)), robust=True)
            break
        except IntegrityError:
            continue
    else:  # three codes taken in a row: something is wrong with the generator, not the user
        raise ServiceUnavailable(gettext("No redeem code could be made; try again."))
    order = order_owned(order_id=order_id, user_id=user_id)
    if paid:
        sold_changed([order.voucher_id])  # committed already: noted at once
    if order.status in (Status.PAID, Status.USED):
        return order
    raise refused(Move.PAY, order, now)


@retry_on_lock_conflict
def order_cancel(*, order_id: int, user_id: int) -> VoucherOrder:
    """The buyer cancels an unpaid order: the unit goes back (database and sale) and the
    buyer may take the voucher again. Cancelling a cancelled order answers it unchanged,
    whoever cancelled it (the buyer, or the pay timeout racing them)."""
    if cancel_unpaid(order_id, user_id=user_id):
        transaction.on_commit(lambda: release_after_commit(order_id), robust=True)
    order = order_owned(order_id=order_id, user_id=user_id)
    if order.status != Status.CANCELLED:
        raise refused(Move.CANCEL, order, clock.now())
    return order
