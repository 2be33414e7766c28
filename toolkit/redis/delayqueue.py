"""A delay queue on two Redis sorted sets: jobs become due at a time, and each due
job is leased to exactly one worker at a time.

`claim` moves due jobs to a leased set atomically (one Lua script), so two
workers never get the same job; `ack` finishes it. A worker that dies before
acking loses its lease, and the job is handed out again: delivery is
at-least-once, so handlers must be idempotent (e.g. a conditional UPDATE).
Members are strings chosen by the caller (an order id, say); scheduling the
same member again just moves its due time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from toolkit import clock

from . import keys
from .client import DEFAULT, get_redis
from .scripts import lua

_CLAIM = lua(__file__, "delay_claim.lua")
_ACK = lua(__file__, "delay_ack.lua")


@dataclass(frozen=True, slots=True)
class Claim:
    member: str
    token: int  # identifies this claim's lease; a later claim of the same job differs


class DelayQueue:
    """Jobs that become due at a given time, kept on the Redis of `alias`
    (client.get_redis), so they survive a worker's restart."""

    def __init__(self, name: str, *, lease: float = 60.0, alias: str = DEFAULT) -> None:
        self.alias = alias
        self.due_key = keys.delay_queue(name, "due")
        self.leased_key = keys.delay_queue(name, "leased")
        self.lease_ms = int(lease * 1000)

    def schedule(self, member: str, *, delay: float) -> None:
        """Make `member` due `delay` seconds from now (ending any lease it has)."""
        self.schedule_many([member], delay=delay)

    def schedule_many(self, members: Sequence[str], *, delay: float) -> None:
        """`schedule` for many members, all due at the same moment: one MULTI of two
        commands (one ZREM, one ZADD) however many members."""
        if not members:
            return
        pipe = get_redis(self.alias).pipeline(transaction=True)
        pipe.zrem(self.leased_key, *members)
        pipe.zadd(self.due_key, dict.fromkeys(members, clock.now_ms() + int(delay * 1000)))
        pipe.execute()

    def cancel(self, member: str) -> bool:
        """Withdraw a job that is no longer needed; True if it was queued or leased."""
        pipe = get_redis(self.alias).pipeline(transaction=True)
        pipe.zrem(self.due_key, member)
        pipe.zrem(self.leased_key, member)
        return any(pipe.execute())

    def claim(self, *, limit: int = 100) -> list[Claim]:
        """Up to `limit` due jobs, leased to the caller until it acks or the lease runs out."""
        token, *members = _CLAIM(
            [self.due_key, self.leased_key],
            [clock.now_ms(), self.lease_ms, limit],
            client=get_redis(self.alias),
        )
        return [Claim(member.decode(), int(token)) for member in members]

    def ack(self, claim: Claim) -> bool:
        """The job is done. False if this claim's lease had run out: the job may then be
        another worker's now, and stays theirs to finish."""
        return bool(_ACK([self.leased_key], [claim.member, claim.token], get_redis(self.alias)))

    def queued(self, members: Sequence[str]) -> set[str]:
        """Those of `members` whose job is waiting or leased, in one round trip."""
        if not members:
            return set()
        pipe = get_redis(self.alias).pipeline(transaction=False)
        pipe.zmscore(self.due_key, list(members))
        pipe.zmscore(self.leased_key, list(members))
        due, leased = pipe.execute()
        return {m for m, a, b in zip(members, due, leased, strict=True) if a or b}

    def pending(self) -> int:
        """Jobs waiting or leased."""
        pipe = get_redis(self.alias).pipeline(transaction=False)
        pipe.zcard(self.due_key)
        pipe.zcard(self.leased_key)
        return sum(pipe.execute())
