"""The DRF throttle classes answer 429 with Retry-After once their limiter says no."""

from __future__ import annotations

import pytest
from rest_framework.response import Response
from rest_framework.test import APIRequestFactory
from rest_framework.views import APIView

from accounts.authentication import TokenUser
from toolkit.api.throttles import FunnelThrottle, SlidingWindowThrottle, parse_rate
from toolkit.redis.ratelimit import SlidingWindowLimiter


class TwoPerSecondFunnel(FunnelThrottle):
    scope = "test-funnel"
    capacity = 2
    leak_per_second = 0.5


class FunnelView(APIView):
    throttle_classes = [TwoPerSecondFunnel]
    authentication_classes = []

    def get(self, request):
        return Response({"ok": True})


def _call(user_id: int | None, ip: str = "127.0.0.1"):
    request = APIRequestFactory().get("/x", REMOTE_ADDR=ip)
    if user_id is not None:
        from rest_framework.test import force_authenticate

        user = TokenUser(id=user_id, nick_name="", icon="")
        # DRF takes any user object; its stubs ask for one of Django's.
        force_authenticate(request, user=user)  # type: ignore[arg-type]
    return FunnelView.as_view()(request)


def test_funnel_throttle_is_per_user_and_sets_retry_after(fake_clock) -> None:
    assert [_call(1).status_code for _ in range(3)] == [200, 200, 429]
    refused = _call(1)
    assert refused["Retry-After"] == "2"  # one unit leaks out every 2 s
    assert refused.data["code"] == "throttled"
    assert _call(2).status_code == 200  # another user has their own funnel
    fake_clock.advance(2)
    assert _call(1).status_code == 200


def test_anonymous_callers_share_a_funnel_per_ip(fake_clock) -> None:
    assert [_call(None).status_code for _ in range(3)] == [200, 200, 429]
    assert _call(None, ip="10.0.0.2").status_code == 200  # another address, its own funnel


@pytest.mark.parametrize(
    ("rate", "expected"),
    [("20/hour", (20, 3600)), ("30/minute", (30, 60)), ("5/s", (5, 1)), ("10/day", (10, 86400))],
)
def test_parse_rate(rate, expected) -> None:
    assert parse_rate(rate) == expected


def test_sliding_window_throttle_reads_its_rate_from_settings(settings) -> None:
    class Limited(SlidingWindowThrottle):
        scope = "sms_ip"

    limiter = Limited().limiter
    assert isinstance(limiter, SlidingWindowLimiter)
    assert limiter.windows == [(1000, 60_000)]  # the test settings' 1000/minute


@pytest.mark.parametrize(
    ("rate", "parsed"),
    [("20/hour", (20, 3600)), ("10/10minutes", (10, 600)), ("5/s", (5, 1)), ("3/2d", (3, 172800))],
)
def test_rates_may_count_several_units(rate: str, parsed: tuple[int, int]) -> None:
    assert parse_rate(rate) == parsed


@pytest.mark.parametrize("rate", ["10/fortnight", "10/", "ten/minute", "10/10"])
def test_a_malformed_rate_is_refused(rate: str) -> None:
    with pytest.raises((ValueError, KeyError)):
        parse_rate(rate)
