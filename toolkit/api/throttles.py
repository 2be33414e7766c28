"""DRF throttles backed by the Lua limiters; Throttled responses carry Retry-After."""

from __future__ import annotations

import math
from typing import Any

from django.conf import settings
from rest_framework.throttling import BaseThrottle

from toolkit.errors import RateLimited
from toolkit.redis.ratelimit import FunnelLimiter, SlidingWindowLimiter, parse_rate

from .clients import client_ip

__all__ = [
    "FunnelThrottle",
    "SlidingWindowThrottle",
    "UserSlidingWindowThrottle",
    "WriteLimited",
    "parse_rate",
    "throttle",
]


class _LimiterThrottle(BaseThrottle):
    limiter: SlidingWindowLimiter | FunnelLimiter
    _wait = 0.0

    def get_ident(self, request: Any) -> str:
        return client_ip(request)  # one rule: NUM_PROXIES, an IPv6 client's /64 (decision 281)

    def get_subject(self, request: Any, view: Any) -> str:
        return f"ip:{self.get_ident(request)}"

    def allow_request(self, request: Any, view: Any) -> bool:
        decision = self.limiter.hit(self.get_subject(request, view))
        self._wait = decision.retry_after
        return decision.allowed

    def wait(self) -> int:
        # Whole seconds, rounded up: "Retry-After: 0" would invite an instant retry.
        return max(1, math.ceil(self._wait))


class SlidingWindowThrottle(_LimiterThrottle):
    """`scope`'s rate from REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], per client IP."""

    scope: str = ""

    def __init__(self, scope: str | None = None) -> None:
        self.scope = scope or self.scope
        rate = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"][self.scope]
        self.limiter = SlidingWindowLimiter.for_rate(self.scope, rate)


class UserSlidingWindowThrottle(SlidingWindowThrottle):
    """`scope`'s rate per authenticated user (per client IP for anonymous callers): the
    limit on writes a user can repeat cheaply."""

    def get_subject(self, request: Any, view: Any) -> str:
        user = request.user
        if getattr(user, "is_authenticated", False):
            return f"user:{user.id}"
        return super().get_subject(request, view)


class WriteLimited:
    """Viewset mixin: the actions in `write_limits` are limited per user, each at its
    scope's rate (writes a user can repeat cheaply answer 429 past it). A request
    for which `is_replay` holds writes nothing and passes uncounted (decision 282)."""

    write_limits: dict[str, str] = {}
    action: str  # as DRF's stubs have it; None when no action matched (hence the `or`)

    def get_throttles(self) -> list[BaseThrottle]:
        scope = self.write_limits.get(self.action or "")
        return [UserSlidingWindowThrottle(scope)] if scope else []

    def is_replay(self, request: Any) -> bool:
        """Whether the request repeats a stored write (an Idempotency-Key's replay), to be
        answered from what is stored: the views with such keys say (after permissions)."""
        return False

    def check_throttles(self, request: Any) -> None:
        if self.is_replay(request):
            return
        super().check_throttles(request)  # type: ignore[misc]  # APIView's, after this mixin


class FunnelThrottle(_LimiterThrottle):
    """A leaky bucket per authenticated user (per IP for anonymous callers)."""

    scope: str = ""
    capacity: float = 10
    leak_per_second: float = 1

    def __init__(self) -> None:
        self.limiter = FunnelLimiter(
            self.scope, capacity=self.capacity, leak_per_second=self.leak_per_second
        )

    def get_subject(self, request: Any, view: Any) -> str:
        user = request.user
        if getattr(user, "is_authenticated", False):
            return f"user:{user.id}"
        return super().get_subject(request, view)


def throttle(scope: str, request: Any, *, user_id: int | None = None) -> None:
    """A DRF throttle for the plain-Django paths, which skip DRF's: one hit of `scope`'s
    rate for the signed-in `user_id`, else for the client's address as the DRF throttles
    name it; RateLimited (429 with Retry-After) past the rate, the refusal not counted."""
    limit = SlidingWindowThrottle(scope)
    subject = f"user:{user_id}" if user_id is not None else limit.get_subject(request, None)
    decision = limit.limiter.hit(subject)
    if not decision.allowed:
        raise RateLimited(decision.retry_after)
