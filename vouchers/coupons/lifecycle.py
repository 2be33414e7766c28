"""An order's life, in one place: the row a new order starts as, the moves between its
states, who may make each move, what each writes, and why a move is refused.

    unpaid ──pay──> paid ──use──> used
      │              │ ^──give back──┘
    cancel        refund
      v              v
    cancelled      refunded

Every move is one conditional UPDATE on the order's status (`move`), so of racing moves
(a cancel and the pay timeout, a refund and a redemption) exactly one wins, and only the
winner goes on to give a unit back (`unit_returns`). The services around it decide when
to move; this module decides what a move is.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING, Any, NamedTuple

from django.db.models import F, QuerySet
from django.utils.translation import gettext_lazy as _

from toolkit.errors import Conflict

from ..caches import vouchers_changed
from ..errors import Code
from ..models import Voucher, VoucherOrder

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

Status = VoucherOrder.Status


class Move(StrEnum):
    PAY = "pay"
    CANCEL = "cancel"
    USE = "use"
    GIVE_BACK = "give back"
    REFUND = "refund"


class Actor(StrEnum):
    """Who makes a move. The services check the person (the owner's id in the UPDATE's
    filter, shop staff before a redemption); `move` checks that the role may make it."""

    OWNER = "the order's owner"
    PAY_TIMEOUT = "the pay timeout"
    PAYER = "the owner paying a bill with it"
    SHOP_STAFF = "the voucher's shop staff, or site staff"
    BILL_REFUND = "the refund of the bill it was used on"


@dataclass(frozen=True, slots=True)
class Transition:
    source: str
    target: str
    by: frozenset[Actor]
    unexpired: bool  # only an order still within its validity makes it
    writes: Callable[[datetime], dict[str, Any]]  # the columns it sets beside `status`


TRANSITIONS = {
    # A paid order gets the code a shop redeems it by.
    Move.PAY: Transition(
        Status.UNPAID,
        Status.PAID,
        frozenset({Actor.OWNER}),
        unexpired=True,
        writes=lambda now: {"paid_at": now, "redeem_code": new_redeem_code()},
    ),
    # A dead order frees its live slot: its buyer may take the voucher again.
    Move.CANCEL: Transition(
        Status.UNPAID,
        Status.CANCELLED,
        frozenset({Actor.OWNER, Actor.PAY_TIMEOUT}),
        unexpired=False,
        writes=lambda now: {"cancelled_at": now, "live_slot": None},
    ),
    Move.USE: Transition(
        Status.PAID,
        Status.USED,
        frozenset({Actor.PAYER, Actor.SHOP_STAFF}),
        unexpired=True,
        writes=lambda now: {"used_at": now},
    ),
    # An expired coupon given back stays used: it was spent on that bill.
    Move.GIVE_BACK: Transition(
        Status.USED,
        Status.PAID,
        frozenset({Actor.BILL_REFUND}),
        unexpired=True,
        writes=lambda now: {"used_at": None},
    ),
    Move.REFUND: Transition(
        Status.PAID,
        Status.REFUNDED,
        frozenset({Actor.OWNER}),
        unexpired=True,
        writes=lambda now: {"refunded_at": now, "live_slot": None},
    ),
}


def move(orders: QuerySet[VoucherOrder], name: Move, *, by: Actor, now: datetime) -> int:
    """Make the move on the orders of `orders` that are in its source state (and, for a
    move that needs it, unexpired at `now`); returns how many moved, at most one for a
    query of one order."""
    transition = TRANSITIONS[name]
    if by not in transition.by:
        raise ValueError(f"{by} may not {name} an order")
    candidates = orders.filter(status=transition.source)
    if transition.unexpired:
        candidates = candidates.filter(expires_at__gt=now)
    return candidates.update(status=transition.target, **transition.writes(now))


# --- refusals ------------------------------------------------------------------------


class Refusal(NamedTuple):
    message: StrOrPromise
    code: Code


_EXPIRED = Refusal(_("The coupon has expired."), Code.COUPON_EXPIRED)
# Not statuses: an order past its validity asked for a move that needs it valid.
_EXPIRED_UNPAID = "expired unpaid"
_EXPIRED_PAID = "expired paid"

# Why a move is refused, by what the order is now and who asked: its owner (pay, cancel,
# refund) or somebody using it as a coupon (a checkout or a redemption). A move from the
# state it leads to answers the order unchanged instead (the services decide that).
REFUSALS: dict[str, tuple[Refusal, Refusal]] = {
    # the order is   refused to its owner                          refused to its use
    Status.UNPAID: (
        Refusal(_("The order is not paid yet; cancel it instead."), Code.ORDER_UNPAID),
        Refusal(_("The coupon is not paid yet."), Code.COUPON_UNPAID),
    ),
    Status.PAID: (
        Refusal(_("The order is paid; refund it instead."), Code.ORDER_PAID),
        Refusal(_("The coupon cannot be used."), Code.COUPON_USED),  # a race lost: retry
    ),
    Status.USED: (
        Refusal(_("The coupon has been used."), Code.COUPON_USED),
        Refusal(_("The coupon has been used."), Code.COUPON_USED),
    ),
    Status.CANCELLED: (
        Refusal(_("The order was cancelled."), Code.ORDER_CANCELLED),
        Refusal(_("The coupon was cancelled."), Code.COUPON_CANCELLED),
    ),
    Status.REFUNDED: (
        Refusal(_("The order was refunded."), Code.ORDER_REFUNDED),
        Refusal(_("The coupon was refunded."), Code.COUPON_REFUNDED),
    ),
    _EXPIRED_UNPAID: (
        Refusal(_("The coupon expired before it was paid."), Code.COUPON_EXPIRED),
        Refusal(_("The coupon is not paid yet."), Code.COUPON_UNPAID),
    ),
    _EXPIRED_PAID: (_EXPIRED, _EXPIRED),
}


def refusal(name: Move, order: VoucherOrder, now: datetime) -> Conflict | None:
    """The refusal for moving `order` by `name` at `now`, or None when the move is allowed.
    Services ask before they write, so a refused move changes nothing."""
    transition = TRANSITIONS[name]
    if order.status == transition.source and not (transition.unexpired and order.is_expired(now)):
        return None
    return refused(name, order, now)


def refused(name: Move, order: VoucherOrder, now: datetime) -> Conflict:
    """The refusal to send when the move `name` did not happen on `order`: either it was
    never allowed, or a concurrent move changed the order first. The answer is worded
    from the order's current state, so the client learns what happened to it."""
    transition, state = TRANSITIONS[name], order.status
    if state == transition.source and transition.unexpired and order.is_expired(now):
        state = _EXPIRED_UNPAID if state == Status.UNPAID else _EXPIRED_PAID
    to_owner, to_use = REFUSALS[state]
    message, code = to_use if name is Move.USE else to_owner
    return Conflict(message, code=code)


# --- a new order, and a dead order's unit ----------------------------------------------


def new_redeem_code() -> str:
    """12 random digits; the unique index refuses the rare repeat and the caller retries."""
    return f"{secrets.randbelow(10**12):012d}"


def expiry_of(created_at: datetime, valid_days: int) -> datetime:
    """Validity is counted from the claim (seed 004)."""
    return created_at + timedelta(days=valid_days)


def new_order(
    *,
    order_id: int,
    user_id: int,
    voucher_id: int,
    created_at: datetime,
    valid_days: int,
    pay_value: int,
    live_slot: int = 1,
) -> dict[str, Any]:
    """The row of a new order, for a claim and for a drained flash-sale order alike: a
    free voucher's coupon is paid at once, with its redeem code
    (docs/product/vouchers.md#coupons); a priced one waits unpaid for its payment or
    its pay timeout."""
    free = pay_value == 0
    return {
        "id": order_id,
        "user_id": user_id,
        "voucher_id": voucher_id,
        "live_slot": live_slot,
        "status": Status.PAID if free else Status.UNPAID,
        "created_at": created_at,
        "paid_at": created_at if free else None,
        "expires_at": expiry_of(created_at, valid_days),
        "redeem_code": new_redeem_code() if free else None,
    }


def unit_returns(order: VoucherOrder) -> bool:
    """Whether a dead order's unit went back on sale: always for a cancellation; for a
    refund, only while its voucher was still on sale (a refund after a flash sale ended
    leaves the unit sold)."""
    if order.status == Status.CANCELLED:
        return True
    if order.status == Status.REFUNDED and order.refunded_at is not None:
        return refund_returns_unit(order.voucher, order.refunded_at)
    return False


def refund_returns_unit(voucher: Voucher, refunded_at: datetime) -> bool:
    """A refund puts the unit back on sale only while its voucher is still on sale."""
    return voucher.status_at(refunded_at) == Voucher.Status.ACTIVE


def locked_voucher(voucher_id: int) -> Voucher:
    """The voucher's row, locked: a move that returns a unit locks it before the order's,
    as claims and the drain do. On MariaDB a claim holding the voucher row and a cancel
    holding the order's unique-slot entry would otherwise wait for each other."""
    return Voucher.objects.select_for_update().get(pk=voucher_id)


def return_to_stock(voucher: Voucher) -> None:
    """One unit back to the database stock (an unlimited voucher's NULL stays NULL); the
    shop's voucher list shows it after commit."""
    if voucher.stock is None:
        return
    Voucher.objects.filter(pk=voucher.id).update(stock=F("stock") + 1)
    vouchers_changed([voucher.id])
