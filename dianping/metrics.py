"""Prometheus metrics: what the processes count, what `/metrics` reads at scrape time.

Counters and histograms are prometheus-client's. With PROMETHEUS_MULTIPROC_DIR set (every
server here: `make run`, scripts/web.sh, the Celery worker) each process writes its own
memory-mapped files in that directory and `/metrics` sums them, so a scrape that reaches
any one granian worker sees every worker's and every Celery process's counts on the host.
No gauge is kept in those files: a dead worker's gauge would linger there (granian has no
child-exit hook to mark it dead). Every gauge (queue depths, stock left, lag, health) is
read from Redis or the database when Prometheus scrapes, by the collectors named in
METRICS_COLLECTORS; a counter of a dead process is still right, summed with the living.

The hot paths pay a few microseconds: one histogram observation per request (its
`_count` is the request counter) and one counter increment per sale verdict or cache
lookup, each on a labelled child looked up once per process (docs/operations.md).
"""

from __future__ import annotations

import functools
import hmac
import logging
import os
import time
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from typing import Any

from django.conf import settings
from django.db import connections
from django.http import Http404, HttpRequest, HttpResponse
from django.utils.module_loading import import_string
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest, multiprocess
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import REGISTRY, Collector

from .redis.client import get_redis

log = logging.getLogger(__name__)

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
UNMATCHED = "<unmatched>"  # a request no route took (a 404, a 413 before resolving)

# Seconds; the sale's 200 takes about a millisecond, a cached read less.
_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

HTTP_REQUESTS = Histogram(
    "dianping_http_request_duration_seconds",
    "Time to answer a request, by route template, method and status; _count counts requests.",
    ["route", "method", "status"],
    buckets=_LATENCY_BUCKETS,
)
CACHE_LOOKUPS = Counter(
    "dianping_cache_lookups",
    "Read-through cache lookups by cache namespace and result (hit: near cache or Redis).",
    ["cache", "result"],
)


class RequestMetricsMiddleware:
    """Outermost: times every answer, labelled by the route template (never the raw path,
    whose cardinality is unbounded) as `request.resolver_match.route` spells it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.children: dict[tuple[str, str, int], Any] = {}

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        match = request.resolver_match
        route = match.route if match is not None else UNMATCHED
        # A client may send any word as its method: one label (and one cached child) for all.
        method = request.method if request.method in _METHODS else "other"
        key = (route, method, response.status_code)
        child = self.children.get(key)
        if child is None:
            child = self.children[key] = HTTP_REQUESTS.labels(route, method, str(key[2]))
        child.observe(time.perf_counter() - started)
        return response


_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


@cache
def cache_counters(namespace: str) -> tuple[Any, Any]:
    """The (hit, miss) counters of one cache namespace (namespaces are fixed in code)."""
    return CACHE_LOOKUPS.labels(namespace, "hit"), CACHE_LOOKUPS.labels(namespace, "miss")


# --- /metrics ------------------------------------------------------------------------


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


def exposition() -> bytes:
    """Every process's counters on this host, then the scrape-time collectors' gauges."""
    registry = _counted()
    for path in settings.METRICS_COLLECTORS:
        registry.register(_Guarded(path, import_string(path)))
    return generate_latest(registry)


def counter_totals(name: str) -> Iterator[tuple[dict[str, str], float]]:
    """(labels, value) of each child of the counter `name`, as `/metrics` sums them: what
    a page of our own (the admin's live sale) shows is what Prometheus scrapes."""
    for family in _counted().collect():
        if family.name == name:
            for sample in family.samples:
                if sample.name == f"{name}_total":
                    yield sample.labels, sample.value


def _counted() -> CollectorRegistry:
    """Every process's counters and histograms on this host (this process's alone
    without a multiprocess directory)."""
    registry = CollectorRegistry(auto_describe=False)
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.MultiProcessCollector(registry)
    else:
        registry.register(_ThisProcess())
    return registry


class _ThisProcess(Collector):
    def collect(self) -> Iterable[Metric]:
        return REGISTRY.collect()


class _Guarded(Collector):
    """A scrape-time collector whose failure (Redis down) costs its own gauges only:
    `dianping_collector_up` says which one failed, and the rest of the scrape goes on."""

    def __init__(self, path: str, collect: Callable[[], Iterable[Metric]]) -> None:
        self.path, self.collect_fn = path, collect

    def collect(self) -> Iterable[Metric]:
        up = GaugeMetricFamily(
            "dianping_collector_up",
            "Whether a scrape-time collector answered.",
            labels=["collector"],
        )
        try:
            families = list(self.collect_fn())
        except Exception:
            log.exception("metrics: collector %s failed", self.path)
            families = []
            up.add_metric([self.path], 0)
        else:
            up.add_metric([self.path], 1)
        return [*families, up]


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
    in one round trip (a task never seen in TASK_SUCCESS_TTL: no sample)."""
    from .redis import keys

    names = list(settings.METRICS_PERIODIC_TASKS)
    last = GaugeMetricFamily(
        "dianping_periodic_task_last_success_timestamp_seconds",
        "Unix time of the last run of a periodic task (by its beat entry) that ended "
        "without an error.",
        labels=["task"],
    )
    stamps = get_redis().mget([keys.task_succeeded(name) for name in names]) if names else []
    for name, stamp in zip(names, stamps, strict=True):
        if stamp is not None:
            last.add_metric([name], float(stamp))
    return [last]


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
