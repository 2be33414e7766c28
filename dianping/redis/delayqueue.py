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

from dianping import clock

from . import keys
from .client import get_redis
from .scripts import lua

_CLAIM = lua(__file__, "delay_claim.lua")


class DelayQueue:
    def __init__(self, name: str, *, lease: float = 60.0) -> None:
        self.due_key = keys.delay_queue(name, "due")
        self.leased_key = keys.delay_queue(name, "leased")
        self.lease_ms = int(lease * 1000)

    def schedule(self, member: str, *, delay: float) -> None:
        """Make `member` due `delay` seconds from now."""
        get_redis().zadd(self.due_key, {member: clock.now_ms() + int(delay * 1000)})

    def cancel(self, member: str) -> bool:
        """Withdraw a job that is no longer needed; True if it was queued or leased."""
        pipe = get_redis().pipeline(transaction=True)
        pipe.zrem(self.due_key, member)
        pipe.zrem(self.leased_key, member)
        return any(pipe.execute())

    def claim(self, *, limit: int = 100) -> list[str]:
        """Up to `limit` due jobs, leased to the caller until it acks or the lease runs out."""
        claimed = _CLAIM([self.due_key, self.leased_key], [clock.now_ms(), self.lease_ms, limit])
        return [member.decode() for member in claimed]

    def ack(self, member: str) -> bool:
        """The job is done; False if its lease had already run out (someone may redo it)."""
        return bool(get_redis().zrem(self.leased_key, member))

    def pending(self) -> int:
        """Jobs waiting or leased."""
        pipe = get_redis().pipeline(transaction=False)
        pipe.zcard(self.due_key)
        pipe.zcard(self.leased_key)
        return sum(pipe.execute())
