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

from django.conf import settings

from dianping.redis import ids, keys
from dianping.redis.client import get_redis

from .drain import Accepted, persist, shard_lock
from .orders import pay_timeouts, pending_field
from .stock import buyers_key


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
        try:
            if b"order" in self.fields:
                order_id = int(self.fields[b"order"])
            else:  # a malformed entry keeps the stream entry's own fields
                seconds, low = int(self.fields[b"seconds"]), int(self.fields[b"low"])
                order_id = ids.compose(ids.ID_EPOCH + seconds, low)
            return Accepted(
                entry_id=self.fields.get(b"entry", self.letter_id),
                order_id=order_id,
                user_id=int(self.fields[b"user"]),
                voucher_id=int(self.fields[b"voucher"]),
            )
        except (KeyError, ValueError, OverflowError):
            return None


@dataclass
class Replay:
    replayed: list[int]  # order ids now in the database
    kept: list[tuple[DeadLetter, str]]  # letters left in place, and why


def dead_letters(*, shard: int | None = None) -> list[DeadLetter]:
    """Every dead letter, oldest first, of one shard or of all."""
    shards = range(settings.SECKILL_SHARDS) if shard is None else [shard]
    client = get_redis()
    return [
        DeadLetter(s, letter_id, fields)
        for s in shards
        for letter_id, fields in client.xrange(keys.seckill_dead_letters(s))
    ]


def replay(*, shard: int | None = None) -> Replay:
    """Persist the dead-lettered orders that can be, and remove their letters."""
    shards = range(settings.SECKILL_SHARDS) if shard is None else [shard]
    outcome = Replay(replayed=[], kept=[])
    for s in shards:
        # The drain's lock: no drainer persists or dead-letters in this shard meanwhile.
        with shard_lock(s, ttl=30, watchdog=True, wait=60):
            for letter in dead_letters(shard=s):
                order = letter.order()
                if order is None:
                    outcome.kept.append((letter, "unreadable: no order, user or voucher"))
                elif (problem := _replay_one(letter, order)) is not None:
                    outcome.kept.append((letter, problem))
                else:
                    outcome.replayed.append(order.order_id)
    return outcome


def _replay_one(letter: DeadLetter, order: Accepted) -> str | None:
    """Persist one letter's order; returns why it was kept, or None once replayed."""
    holder = get_redis().hget(buyers_key(order.voucher_id), order.user_id)
    if holder != pending_field(order.order_id).encode():
        return "its unit was released since (reconcile --fix or a cancellation): not replayed"
    try:
        persist([order])
    except Exception as exc:  # the cause is not fixed yet: keep the letter, say why
        return f"still failing: {exc!r}"
    # A crash here only means the next replay finds the order persisted and finishes.
    pipe = get_redis().pipeline(transaction=True)
    pay_timeouts().queue_schedule_many(
        pipe, [str(order.order_id)], delay=settings.ORDER_PAY_TIMEOUT
    )
    pipe.xdel(keys.seckill_dead_letters(letter.shard), letter.letter_id)
    pipe.execute()
    return None
