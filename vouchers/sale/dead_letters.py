"""The dead-letter streams: accepted orders the drain gave up on, listed and replayed.

An order lands there when persisting it kept failing on its own account (its voucher's
database stock below what Redis sold, an id collision) or its stream entry was
malformed. Once an operator has fixed the cause, a replay persists each order exactly
as the drain would. A replay persists an order only while Redis still holds the
buyer's unit for it (the buyers hash maps the user to this very order): if reconcile
or a cancellation released that unit since, persisting the order would sell the unit
twice, so the letter is kept and the reason said.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from django.conf import settings

from .. import keys
from ..sale_orders import order_bucket_keys, order_jobs, pending_field, sale_redis
from .drain import persist
from .shard import MALFORMED, Accepted, accepted_from, shard_lock


@dataclass(frozen=True, slots=True)
class DeadLetter:
    shard: int
    letter_id: bytes  # the id in the dead-letter stream
    fields: dict[bytes, bytes]

    @property
    def reason(self) -> str:
        return self.fields.get(b"reason", b"").decode(errors="replace")

    def order(self) -> Accepted | None:
        """The accepted order this letter keeps, or None if it cannot be read back."""
        try:  # a letter keeps its stream entry's fields
            return accepted_from(self.fields.get(b"entry", self.letter_id), self.fields)
        except MALFORMED:
            return None


@dataclass
class Replay:
    replayed: list[int]  # order ids now in the database
    kept: list[tuple[DeadLetter, str]]  # letters left in place, and why


def dead_letters(*, shard: int | None = None) -> list[DeadLetter]:
    """Every dead letter, oldest first, of one shard or of all."""
    shards = range(settings.SECKILL_SHARDS) if shard is None else [shard]
    client = sale_redis()
    return [
        DeadLetter(s, letter_id, fields)
        for s in shards
        for letter_id, fields in cast(
            "list[tuple[bytes, dict[bytes, bytes]]]", client.xrange(keys.seckill_dead_letters(s))
        )
    ]


class LockLost(Exception):
    """The shard's lock ran out mid-replay: a drainer or reconcile may act meanwhile."""


def replay(*, shard: int | None = None) -> Replay:
    """Persist the dead-lettered orders that can be, and remove their letters."""
    shards = range(settings.SECKILL_SHARDS) if shard is None else [shard]
    outcome = Replay(replayed=[], kept=[])
    for s in shards:
        # The drain's lock: no drainer persists or dead-letters in this shard, and no
        # reconcile releases units in it, while we check and write.
        with shard_lock(s, ttl=30, watchdog=True, wait=60) as lock:
            for letter in dead_letters(shard=s):
                if lock.lost:
                    raise LockLost(f"shard {s}: lock lost; replayed so far: {outcome.replayed}")
                order = letter.order()
                if order is None:
                    outcome.kept.append((letter, "unreadable: no order, user or voucher"))
                elif (problem := _replay_one(letter, order)) is not None:
                    outcome.kept.append((letter, problem))
                else:
                    outcome.replayed.append(order.order_id)
    return outcome


def _replay_one(letter: DeadLetter, order: Accepted) -> str | None:
    """Persist one letter's order; returns why it was kept, or None once replayed.

    The pay timeout is scheduled first: an order in the database without one would hold
    its unit forever. A timeout whose order never got written finds nothing to cancel;
    a crash after the commit only makes the next replay find the order and finish."""
    client = sale_redis()
    _, buyers = order_bucket_keys(order.voucher_id, order.order_id)
    holder = client.hget(buyers, order.user_id)
    if holder != pending_field(order.order_id).encode():
        return "its unit was released since (reconcile --fix or a cancellation): not replayed"
    order_jobs().schedule(str(order.order_id), delay=settings.ORDER_PAY_TIMEOUT)
    try:
        persist([order])
    except Exception as exc:  # the cause is not fixed yet: keep the letter, say why
        return f"still failing: {exc!r}"
    pipe = client.pipeline(transaction=True)
    pipe.xdel(keys.seckill_dead_letters(letter.shard), letter.letter_id)
    # Left behind if a drainer died between dead-lettering and this cleanup: reconcile
    # would count the order twice (persisted and pending).
    pipe.hdel(keys.seckill_pending(letter.shard), pending_field(order.order_id))
    pipe.execute()
    return None
