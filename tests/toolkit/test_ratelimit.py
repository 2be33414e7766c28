"""Rate limiters allow exactly the configured rate, even when hit concurrently."""

from __future__ import annotations

import pytest

from tests.helpers import run_concurrently
from toolkit.redis import keys
from toolkit.redis.ratelimit import FunnelLimiter, SlidingWindowLimiter

NOW = 1_790_000_000_000  # ms


def test_sliding_window_allows_exactly_the_limit_under_concurrency() -> None:
    limiter = SlidingWindowLimiter("t", [(10, 60)])

    decisions = run_concurrently(lambda _: limiter.hit("alice", now_ms=NOW), workers=50)

    allowed = [d for d in decisions if d.allowed]
    refused = [d for d in decisions if not d.allowed]
    assert len(allowed) == 10
    assert len(refused) == 40
    assert all(0 < d.retry_after <= 60 for d in refused)


def test_sliding_window_slides() -> None:
    limiter = SlidingWindowLimiter("t", [(2, 10)])
    assert limiter.hit("bob", now_ms=NOW).allowed
    assert limiter.hit("bob", now_ms=NOW + 4_000).allowed

    refused = limiter.hit("bob", now_ms=NOW + 9_999)
    assert not refused.allowed
    assert refused.retry_after == pytest.approx(0.001)
    # The first hit ages out exactly one window after it was made; the second is still in.
    assert limiter.hit("bob", now_ms=NOW + 10_000).allowed
    assert not limiter.hit("bob", now_ms=NOW + 10_001).allowed
    assert limiter.hit("carol", now_ms=NOW + 10_001).allowed  # subjects are independent


def test_several_windows_are_all_or_nothing(redis_client) -> None:
    limiter = SlidingWindowLimiter("sms", [(1, 60), (3, 3600)])
    assert limiter.hit("p", now_ms=NOW).allowed

    refused = limiter.hit("p", now_ms=NOW + 30_000)
    assert not refused.allowed
    assert refused.retry_after == 30
    # A refusal records nothing in any window.
    assert redis_client.zcard(keys.sliding_window("sms", "p", 3_600_000)) == 1

    assert limiter.hit("p", now_ms=NOW + 60_000).allowed
    assert limiter.hit("p", now_ms=NOW + 120_000).allowed
    hourly = limiter.hit("p", now_ms=NOW + 180_000)
    assert not hourly.allowed
    assert hourly.retry_after == 3600 - 180


def test_funnel_allows_the_burst_then_the_leak_rate() -> None:
    limiter = FunnelLimiter("buy", capacity=10, leak_per_second=5)

    burst = run_concurrently(lambda _: limiter.hit("u1", now_ms=NOW), workers=50)
    assert sum(d.allowed for d in burst) == 10
    assert min(d.retry_after for d in burst if not d.allowed) == pytest.approx(0.2)

    # One second later exactly five have leaked out, so exactly five more fit.
    later = run_concurrently(lambda _: limiter.hit("u1", now_ms=NOW + 1_000), workers=20)
    assert sum(d.allowed for d in later) == 5


def test_funnel_does_not_refill_when_the_clock_steps_back() -> None:
    limiter = FunnelLimiter("buy", capacity=2, leak_per_second=1)
    assert limiter.hit("u2", now_ms=NOW).allowed
    assert limiter.hit("u2", now_ms=NOW).allowed

    assert not limiter.hit("u2", now_ms=NOW - 5_000).allowed
    assert not limiter.hit("u2", now_ms=NOW + 500).allowed
    assert limiter.hit("u2", now_ms=NOW + 1_000).allowed


def test_funnel_rejects_a_quota_that_can_never_fit() -> None:
    with pytest.raises(ValueError, match="quota"):
        FunnelLimiter("buy", capacity=2, leak_per_second=1).hit("u3", quota=3)


def test_limiters_use_the_app_clock(fake_clock) -> None:
    limiter = SlidingWindowLimiter("clocked", [(1, 60)])
    assert limiter.hit("x").allowed
    fake_clock.advance(59.9)
    assert not limiter.hit("x").allowed
    fake_clock.advance(0.1)
    assert limiter.hit("x").allowed
