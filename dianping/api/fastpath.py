"""The plain-Django fast paths (the hot reads, the seckill POST) in one shape.

A hot endpoint skips DRF's per-request machinery for its one hot method; the route's
other methods, and its OpenAPI schema, stay with the DRF viewset it stands in for. One
decorator gives every such view the same method dispatch (DRF answers the others,
including 405 with `Allow`), CSRF exemption (bearer tokens, no cookies, as every DRF
view) and error mapping (a DomainError or a query's ValidationError becomes the API's
JSON error). Such a view answers `json_response(...)` or JSON bytes it already has.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import orjson
from django.core.serializers.json import DjangoJSONEncoder
from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework.exceptions import ValidationError
from rest_framework.viewsets import ViewSetMixin

from dianping.errors import DomainError
from dianping.redis.outage import OUTAGE_ERRORS

from .exceptions import domain_error_json, redis_outage, validation_error_json

View = Callable[..., HttpResponse]


def fast_path(
    method: str,
    *,
    viewset: type[ViewSetMixin],
    actions: dict[str, str],
    without_redis: View | None = None,
) -> Callable[[View], View]:
    """Serve `method` with the decorated plain view, every other method of the route
    with `viewset.as_view(actions)`. While Redis cannot be reached, an anonymous call is
    answered by `without_redis` (the same answer from the database alone), if given; any
    other call gets a 503 with Retry-After."""
    drf_view = viewset.as_view(dict(actions))  # a copy of the type DRF's stubs ask for

    def decorate(fast: View) -> View:
        @csrf_exempt
        @functools.wraps(fast)
        def view(request: HttpRequest, **kwargs: object) -> HttpResponse:
            if request.method != method:
                return drf_view(request, **kwargs)
            try:
                try:
                    return fast(request, **kwargs)
                except OUTAGE_ERRORS:
                    if without_redis is None or "HTTP_AUTHORIZATION" in request.META:
                        raise
                    return without_redis(request, **kwargs)
            except DomainError as exc:
                return domain_error_json(exc)
            except ValidationError as exc:  # a query serializer's (dianping.api.queries)
                return validation_error_json(exc.detail)
            except OUTAGE_ERRORS:
                return domain_error_json(redis_outage(request))

        # What the OpenAPI generator reads: the viewset and its actions for the route.
        view.cls = drf_view.cls  # type: ignore[attr-defined]
        view.initkwargs = drf_view.initkwargs  # type: ignore[attr-defined]
        view.actions = drf_view.actions  # type: ignore[attr-defined]
        return view

    return decorate


_DJANGO_TYPES = DjangoJSONEncoder().default  # times, decimals, lazy texts: as DRF sends them


def json_response(data: Any) -> HttpResponse:
    """`data` as DRF's renderer would send it (compact, UTF-8 unescaped), without DRF;
    orjson, as the hot reads spend much of their time on JSON (docs/benchmarks.md)."""
    return json_bytes(
        orjson.dumps(data, default=_DJANGO_TYPES, option=orjson.OPT_PASSTHROUGH_DATETIME)
    )


def json_bytes(raw: bytes) -> HttpResponse:
    """JSON already encoded (a cached document, or one spliced from them)."""
    return HttpResponse(raw, content_type="application/json")
