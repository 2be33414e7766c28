"""The `/metrics` view and the scrape-time health collectors (Redis, the database,
Celery's queue and heartbeat, the periodic tasks) that settings.METRICS_COLLECTORS
names; the counters, histograms and the exposition are toolkit/metrics.py's.
"""

from __future__ import annotations

import functools
import hmac
from collections.abc import Callable, Iterable
from functools import cache
from typing import Any

from django.conf import settings
from django.db import connections
from django.http import Http404, HttpRequest, HttpResponse
from prometheus_client.core import GaugeMetricFamily, Metric

from toolkit.metrics import CONTENT_TYPE, exposition
from toolkit.redis.client import get_redis


def metrics_view(request: HttpRequest) -> HttpResponse:
    """The exposition, for a bearer of METRICS_TOKEN; 404 while no token is configured
    (docs/security.md)."""
    token = settings.METRICS_TOKEN
    if not token:
        raise Http404()
    given = request.META.get("HTTP_AUTHORIZATION", "")
    if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
        return HttpResponse(
            "a bearer token is required\n",
            status=401,
            content_type="text/plain; charset=utf-8",
            headers={"WWW-Authenticate": "Bearer"},
        )
    return HttpResponse(exposition(), content_type=CONTENT_TYPE)


def health_metrics() -> Iterable[Metric]:
    """Redis (each configured alias and the broker), the database, Celery's queue."""
    redis_up = GaugeMetricFamily(
        "dianping_redis_up", "Whether a Redis answers PING.", labels=["redis"]
    )
    for alias in settings.CACHES:
        redis_up.add_metric([alias], _answers(get_redis(alias).ping))
    broker = _broker()
    broker_up = _answers(broker.ping)
    redis_up.add_metric(["broker"], broker_up)
    database_up = GaugeMetricFamily(
        "dianping_database_up", "Whether the database answers SELECT 1.", labels=["database"]
    )
    for alias in settings.DATABASES:
        database_up.add_metric([alias], _answers(functools.partial(_select_one, alias)))
    families: list[Metric] = [redis_up, database_up, *_worker_metrics()]
    if broker_up:
        queue = settings.CELERY_TASK_DEFAULT_QUEUE
        length = GaugeMetricFamily(
            "dianping_celery_queue_length",
            "Celery tasks waiting in the broker's queue (not yet taken by a worker).",
            labels=["queue"],
        )
        length.add_metric([queue], float(broker.llen(queue)))
        families.append(length)
    return families


def _worker_metrics() -> list[Metric]:
    """The heartbeat's age and the age /api/health calls stalled (alerts compare them)."""
    from .tasks import heartbeat_age, worker_stall_seconds

    threshold = GaugeMetricFamily(
        "dianping_worker_stall_threshold_seconds",
        "Heartbeat age past which /api/health says the workers stalled (3 x HEARTBEAT_INTERVAL).",
    )
    threshold.add_metric([], worker_stall_seconds())
    try:
        age = heartbeat_age()
    except Exception:  # Redis down: dianping_redis_up says so, and must still be scraped
        age = None
    if age is None:  # never seen (a fresh install), or unknown now: nothing to compare
        return [threshold]
    heartbeat = GaugeMetricFamily(
        "dianping_worker_heartbeat_age_seconds",
        "Seconds since a Celery worker last ran the beat-scheduled heartbeat.",
    )
    heartbeat.add_metric([], age)
    return [threshold, heartbeat]


def periodic_task_metrics() -> Iterable[Metric]:
    """When each periodic task of METRICS_PERIODIC_TASKS last ran to its end, from Redis
    in one round trip (a task never seen in TASK_SUCCESS_TTL: no sample), and the age of
    it past which each is late: the alert compares them per task (decision 420)."""
    from toolkit.redis import keys

    thresholds = dict(settings.METRICS_PERIODIC_TASKS)
    names = list(thresholds)
    late = GaugeMetricFamily(
        "dianping_periodic_task_late_threshold_seconds",
        "Age of a periodic task's last success past which the alert calls it late.",
        labels=["task"],
    )
    for name in names:
        late.add_metric([name], float(thresholds[name]))
    last = GaugeMetricFamily(
        "dianping_periodic_task_last_success_timestamp_seconds",
        "Unix time of the last run of a periodic task (by its beat entry) that ended "
        "without an error.",
        labels=["task"],
    )
    pipe = get_redis().pipeline(transaction=False)  # GETs, not an MGET: a Cluster spreads
    for name in names:  # the stamps over its slots, and one round trip either way
        pipe.get(keys.task_succeeded(name))
    stamps = pipe.execute()
    for name, stamp in zip(names, stamps, strict=True):
        if stamp is not None:
            last.add_metric([name], float(stamp))
    return [late, last]


def _answers(ping: Callable[[], object]) -> float:
    try:
        ping()
    except Exception:
        return 0.0
    return 1.0


def _select_one(alias: str) -> None:
    with connections[alias].cursor() as cursor:
        cursor.execute("SELECT 1")


@cache
def _broker() -> Any:
    """A client of the broker's Redis (Celery's own connection pool is the worker's)."""
    import redis

    url = settings.CELERY_BROKER_URL.replace("redis+socket://", "unix://", 1)
    return redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=5)
