"""Rate limiters as atomic Lua scripts: sliding window and funnel (leaky bucket).

Both read time from toolkit.clock (the app servers' clock) so tests can move
time; a few ms of skew between app servers only blurs a window's edge.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from toolkit import clock

from . import keys
from .client import get_redis
from .scripts import FUNNEL_LIB, lua

_SLIDING_WINDOW = lua(__file__, "sliding_window.lua")
_FUNNEL = lua(__file__, "funnel.lua", prelude=(FUNNEL_LIB,))


@dataclass(frozen=True, slots=True)
class Decision:
    allowed: bool
    retry_after: float  # seconds until the request would be allowed; 0 when allowed
    entry: str = ""  # what a sliding window recorded, so the hit can be refunded


class SlidingWindowLimiter:
    """At most `limit` hits per `window` seconds, for every (limit, window) pair at once.

    Several windows of one subject (e.g. 1 per minute and 10 per day) are
    checked and recorded together, so a refused request consumes nothing.
    """

    def __init__(self, scope: str, windows: Sequence[tuple[int, float]]) -> None:
        if not windows or any(limit < 1 or window <= 0 for limit, window in windows):
            raise ValueError("each window needs limit >= 1 and a positive length")
        self.scope = scope
        self.windows = [(int(limit), int(window * 1000)) for limit, window in windows]

    @classmethod
    def for_rate(cls, scope: str, rate: str) -> SlidingWindowLimiter:
        """One window from a DRF-style rate, e.g. "20/hour" or "10/10minutes"."""
        return cls(scope, [parse_rate(rate)])

    def hit(self, ident: str, *, now_ms: int | None = None) -> Decision:
        now = clock.now_ms() if now_ms is None else now_ms
        entry = f"{now}-{secrets.token_hex(6)}"
        args: list[int | str] = [now, entry]
        for limit, window_ms in self.windows:
            args += [limit, window_ms]
        allowed, wait_ms = _SLIDING_WINDOW(self._keys(ident), args)
        return Decision(bool(allowed), int(wait_ms) / 1000, entry if allowed else "")

    def refund(self, ident: str, decision: Decision) -> None:
        """Take back an allowed hit whose action failed, so it does not use up the quota."""
        if decision.entry:
            pipe = get_redis().pipeline(transaction=False)
            for key in self._keys(ident):
                pipe.zrem(key, decision.entry)
            pipe.execute()

    def _keys(self, ident: str) -> list[str]:
        return [keys.sliding_window(self.scope, ident, w) for _, w in self.windows]


class FunnelLimiter:
    """Bursts of up to `capacity`, then `leak_per_second` requests per second on average."""

    def __init__(self, scope: str, *, capacity: float, leak_per_second: float) -> None:
        if capacity <= 0 or leak_per_second <= 0:
            raise ValueError("capacity and leak_per_second must be positive")
        self.scope = scope
        self.capacity = capacity
        self.leak_per_ms = leak_per_second / 1000

    def hit(self, ident: str, *, quota: float = 1, now_ms: int | None = None) -> Decision:
        if not 0 < quota <= self.capacity:
            raise ValueError("quota must be positive and fit in the funnel")
        now = clock.now_ms() if now_ms is None else now_ms
        allowed, wait_ms = _FUNNEL(
            [keys.funnel(self.scope, ident)], [self.capacity, repr(self.leak_per_ms), quota, now]
        )
        return Decision(bool(allowed), int(wait_ms) / 1000)


_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_PERIOD = re.compile(r"(?P<units>\d*)\s*(?P<unit>[smhdSMHD][a-zA-Z]*)")


def parse_rate(rate: str) -> tuple[int, int]:
    """'20/hour' -> (20, 3600), '10/10minutes' -> (10, 600): the unit is read from its first
    letter, as DRF does, after an optional number of units."""
    count, period = rate.split("/")
    match = _PERIOD.fullmatch(period.strip())
    if match is None:
        raise ValueError(f"not a rate: {rate!r}")
    units = int(match["units"] or 1)
    return int(count), units * _PERIODS[match["unit"][0].lower()]
