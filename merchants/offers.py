"""An offer's life, in one place: its states, the moves between them, who makes each,
and why a move is refused.

    draft ──submit──> submitted ──publish──> published ──stop──> stopped
      ^ edit            │   ^                (a Voucher)
      └─────────        return  └──submit── returned <── edit
                        v                      ^
                     returned ─────────────────┘

Only a draft or a returned offer is edited (an operator decides on what was submitted,
nothing else). Every move is one conditional UPDATE on the offer's state (`move`), so of
racing moves (two publishes, a publish and a send back, two stops) exactly one wins; a
move with work besides (a publish's voucher, a stop's void) first holds the offer's row
(`held`), so the loser never does that work (tests/merchants/test_races.py). The services
decide when to move; this module decides what a move is and which states allow it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _

from toolkit.errors import Conflict

from .errors import Code
from .models import OfferDraft

State = OfferDraft.State


class Move(StrEnum):
    EDIT = "edit"
    SUBMIT = "submit"
    PUBLISH = "publish"
    RETURN = "send back"
    STOP = "stop"


class Actor(StrEnum):
    OWNER = "the shop's owner"
    OPERATOR = "an operator"


@dataclass(frozen=True, slots=True)
class Transition:
    sources: frozenset[str]
    target: str | None  # None: the offer stays in its state (an edit)
    by: frozenset[Actor]


_OWNER, _OPERATOR = frozenset({Actor.OWNER}), frozenset({Actor.OPERATOR})

TRANSITIONS = {
    Move.EDIT: Transition(frozenset({State.DRAFT, State.RETURNED}), None, _OWNER),
    Move.SUBMIT: Transition(frozenset({State.DRAFT, State.RETURNED}), State.SUBMITTED, _OWNER),
    Move.PUBLISH: Transition(frozenset({State.SUBMITTED}), State.PUBLISHED, _OPERATOR),
    Move.RETURN: Transition(frozenset({State.SUBMITTED}), State.RETURNED, _OPERATOR),
    Move.STOP: Transition(
        frozenset({State.PUBLISHED}), State.STOPPED, frozenset({Actor.OWNER, Actor.OPERATOR})
    ),
}

# Whether an offer waits in the operators' queue, by state (the `waiting` column).
WAITING = {State.SUBMITTED}


def move(
    offers: QuerySet[OfferDraft], name: Move, *, by: Actor, now: datetime, **writes: Any
) -> int:
    """Make the move on the offers of `offers` in one of its source states, writing
    `writes` beside the state; returns how many moved (at most one for one offer)."""
    transition = TRANSITIONS[name]
    if by not in transition.by:
        raise ValueError(f"{by} may not {name} an offer")
    target = {}
    if transition.target is not None:
        target = {"state": transition.target, "waiting": transition.target in WAITING}
    return offers.filter(state__in=transition.sources).update(**target, updated_at=now, **writes)


# Why a move is refused, by the state the offer is in (a move's own sources never are).
REFUSALS = {
    State.DRAFT: (_("The offer is a draft: submit it first."), Code.OFFER_DRAFT),
    State.SUBMITTED: (
        _("The offer is waiting for an operator's decision."),
        Code.OFFER_SUBMITTED,
    ),
    State.RETURNED: (
        _("The offer was sent back: edit it and submit it again."),
        Code.OFFER_RETURNED,
    ),
    State.PUBLISHED: (_("The offer is published."), Code.OFFER_PUBLISHED),
    State.STOPPED: (_("The offer's sale was stopped."), Code.OFFER_STOPPED),
}


def held(offers: QuerySet[OfferDraft], name: Move) -> OfferDraft | None:
    """The offer of `offers`, its row locked until commit, for a move that does more than
    its UPDATE (a publish creates a voucher, a stop voids one) and must do it once: of
    racing moves, the later waits here and is then refused by the state the first left
    (the 409 of `allowed`). None when there is no such offer."""
    offer = offers.select_for_update().first()
    if offer is not None:
        allowed(name, offer.state)
    return offer


def allowed(name: Move, state: str) -> None:
    """Raise the 409 of `state` unless the move starts from it (a check before the move's
    own conditional UPDATE, to answer the state's 409 before any 400 of a request's body)."""
    if state not in TRANSITIONS[name].sources:
        raise refusal(state)


def refusal(state: str) -> Conflict:
    """The 409 for a move the offer's `state` does not allow."""
    message, code = REFUSALS[State(state)]
    return Conflict(str(message), code=code)
