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

import logging
import os
import time
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.module_loading import import_string
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest, multiprocess
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import REGISTRY, Collector

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
