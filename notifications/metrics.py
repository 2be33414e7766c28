"""The inboxes' metrics (dianping/metrics.py has the mechanics; docs/operations.md lists
them): notifications counted by kind where they are written (in the Celery process that
writes them), and the open notification streams as a gauge ("Notification stream"): each
stream process reports its count to Redis every REPORT_SECONDS and /metrics sums the
processes heard from within three reports, so a process that died drops out of the sum (no
gauge lives in prometheus-client's per-process files)."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
from collections.abc import Callable, Iterable
from functools import cache
from typing import Any, cast

from prometheus_client import Counter
from prometheus_client.core import GaugeMetricFamily, Metric

from toolkit.redis.aio import bounded, get_async_redis
from toolkit.redis.client import get_redis

from . import keys

log = logging.getLogger(__name__)

REPORT_SECONDS = 15.0

NOTIFICATIONS_SENT = Counter(
    "dianping_notifications_sent",
    "Notifications added to inboxes, by kind (an event told before adds none; a comment "
    "folded into an unread item counts as one).",
    ["kind"],
)


@cache
def sent(kind: str) -> Any:
    """The counter child of one kind (the kinds are fixed in code): looked up once per
    process."""
    return NOTIFICATIONS_SENT.labels(kind)


def _process() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


async def report_open_streams(count: Callable[[], int]) -> None:
    """Forever, in a stream process: its count of open streams, every REPORT_SECONDS."""
    counts, seen = keys.open_streams(), keys.stream_processes_seen()
    member = _process()
    while True:
        try:
            async with bounded():
                pipe = get_async_redis().pipeline(transaction=False)
                pipe.hset(counts, member, count())
                pipe.zadd(seen, {member: time.time()})
                await pipe.execute()
        except Exception as error:  # Redis down: the gauge drops this process meanwhile
            log.warning("notification streams: count not reported (%r)", error)
        await asyncio.sleep(REPORT_SECONDS)


def stream_metrics() -> Iterable[Metric]:
    """Scrape time: the open streams of every stream process heard from lately, and how
    many such processes there are; the ones not heard from are removed."""
    counts, seen = keys.open_streams(), keys.stream_processes_seen()
    client = get_redis()
    cutoff = time.time() - 3 * REPORT_SECONDS
    gone = _names(client.zrangebyscore(seen, "-inf", f"({cutoff}"))
    if gone:
        pipe = client.pipeline(transaction=False)
        pipe.zrem(seen, *gone)
        pipe.hdel(counts, *gone)
        pipe.execute()
    live = _names(client.zrangebyscore(seen, cutoff, "+inf"))
    values = client.hmget(counts, live) if live else []
    streams = GaugeMetricFamily(
        "dianping_notification_streams_open",
        "Notification streams (server-sent events) open now, over every stream process.",
    )
    streams.add_metric([], float(sum(int(value or 0) for value in values)))
    processes = GaugeMetricFamily(
        "dianping_notification_stream_processes",
        "Stream processes that reported their open streams within the last three reports.",
    )
    processes.add_metric([], float(len(live)))
    return [streams, processes]


def _names(members: Any) -> list[str]:
    return [member.decode() for member in cast("list[bytes]", members)]
