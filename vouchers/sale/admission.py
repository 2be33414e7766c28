"""Admission before Redis: a token bucket per voucher in each web process, in front of the
sale script (decision 301).

One voucher's sale runs on one Redis thread, whatever the web tier: past its budget, more
grabs only queue in front of that thread and slow every answer. A process admits at most
SECKILL_ADMISSION_RATE grabs a second per voucher (after a burst of
SECKILL_ADMISSION_BURST) and answers the rest 429 with Retry-After from memory: no Redis
call, no stock, buyer or token touched. Sizing: docs/operations.md.
"""

from __future__ import annotations

import math
import threading

from django.conf import settings
from django.utils.translation import gettext

from toolkit import clock, runtime
from toolkit.errors import RateLimited

from ..metrics import verdict_counter

NOT_ADMITTED = "not_admitted"  # its verdict in dianping_seckill_requests_total


class _Bucket:
    __slots__ = ("at", "tokens")

    def __init__(self, tokens: float, at: float) -> None:
        self.tokens = tokens
        self.at = at


# voucher id -> its bucket. Only vouchers that passed the window's checks get one (real
# flash sales), so it holds as many entries as there are sales.
_buckets: dict[int, _Bucket] = {}
# Granian's blocking threads share a process's buckets: the refill and the take happen
# under one lock, a few float operations long.
_lock = threading.Lock()

# This process's own counts: forgotten between tests and by a forked child, which starts
# with full buckets like any new process.
runtime.register(
    runtime.Part(
        "seckill-admission", reset=_buckets.clear, stop=lambda: None, after_fork=_buckets.clear
    )
)


def burst() -> float:
    """SECKILL_ADMISSION_BURST, or one second of the rate when it is 0 (at least one)."""
    return float(
        settings.SECKILL_ADMISSION_BURST or max(1, math.ceil(settings.SECKILL_ADMISSION_RATE))
    )


def seckill_admit(*, voucher_id: int) -> None:
    """Take one grab's token of `voucher_id`'s bucket, or raise RateLimited (429) with the
    seconds until the next token. A new bucket starts full. Off when the rate is 0."""
    rate = settings.SECKILL_ADMISSION_RATE
    if rate <= 0:
        return
    capacity = burst()
    now = clock.now_seconds()
    with _lock:
        bucket = _buckets.get(voucher_id)
        if bucket is None:
            bucket = _buckets[voucher_id] = _Bucket(capacity, now)
        else:  # a clock set back refills nothing, and owes nothing
            bucket.tokens = min(capacity, bucket.tokens + max(0.0, now - bucket.at) * rate)
            bucket.at = now
        if bucket.tokens >= 1:
            bucket.tokens -= 1
            return
        wait = (1 - bucket.tokens) / rate
    verdict_counter(voucher_id, NOT_ADMITTED).inc()
    raise RateLimited(wait, gettext("Busy right now; try again."))
