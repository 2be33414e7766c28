"""The plain-Django fast paths (the hot reads, the seckill POST): one door per endpoint.

A hot endpoint's hot method is served by one plain function that skips DRF's
per-request machinery; that function is also its documentation: `extend_schema` and
`api_errors` sit on it and its docstring is the operation's description (decision 450).
The decorator builds, from the function, a viewset subclass that gives the route's
other methods to DRF (405 with `Allow` included) and gives the OpenAPI generator the
operation; its one generated handler runs only for HEAD, which DRF maps onto GET's
action, and calls the same function, so no viewset method ever repeats a fast path's
logic. One decorator also gives every such view the same CSRF exemption (bearer
tokens, no cookies, as every DRF view) and error mapping (a DomainError or a query's
ValidationError becomes the API's JSON error). Such a view answers `json_response(...)`
or JSON bytes it already has.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import orjson
from django.core.exceptions import ImproperlyConfigured
from django.core.serializers.json import DjangoJSONEncoder
from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import viewsets
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.viewsets import ViewSetMixin

from toolkit.errors import DomainError
from toolkit.redis.outage import OUTAGE_ERRORS

from .exceptions import domain_error_json, redis_outage, validation_error_json

View = Callable[..., HttpResponse]


def fast_path(
    method: str,
    action: str,
    *,
    viewset: type[ViewSetMixin] = viewsets.ViewSet,
    actions: Mapping[str, str] | None = None,
    permission_classes: Sequence[type[BasePermission]] | None = None,
    without_redis: View | None = None,
) -> Callable[[View], View]:
    """Serve `method` with the decorated plain view, documented as the viewset action
    `action` (its name sets the operation id and the viewset's per-action policy). The
    route's other methods are `viewset`'s `actions`; `permission_classes`, if given, is
    the route's permission policy (what HEAD is checked against and the schema shows).
    While Redis cannot be reached, an anonymous call is answered by `without_redis` (the
    same answer from the database alone), if given; any other call gets a 503 with
    Retry-After."""
    others = dict(actions or {})
    if method.lower() in others:
        raise ImproperlyConfigured(f"{method} is the fast path's; no viewset action serves it")

    def decorate(fast: View) -> View:
        if hasattr(viewset, action):
            raise ImproperlyConfigured(
                f"{viewset.__name__}.{action} would be a second door to {fast.__name__}: "
                "document the fast path on the function instead"
            )
        if not fast.__doc__:
            raise ImproperlyConfigured(f"{fast.__name__} needs a docstring: the description")
        drf_view = _schema_viewset(fast, action, viewset, permission_classes).as_view(
            {**others, method.lower(): action}
        )

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
            except ValidationError as exc:  # a query serializer's (toolkit.api.queries)
                return validation_error_json(exc.detail)
            except OUTAGE_ERRORS:
                return domain_error_json(redis_outage(request))

        # What the OpenAPI generator reads: the generated viewset and the route's actions.
        view.cls = drf_view.cls  # type: ignore[attr-defined]
        view.initkwargs = drf_view.initkwargs  # type: ignore[attr-defined]
        view.actions = drf_view.actions  # type: ignore[attr-defined]
        # What tests/test_fast_paths.py reads: which method and action are the fast one's.
        view.fast_method = method  # type: ignore[attr-defined]
        view.fast_action = action  # type: ignore[attr-defined]
        return view

    return decorate


def _schema_viewset(
    fast: View,
    action: str,
    viewset: type[ViewSetMixin],
    permission_classes: Sequence[type[BasePermission]] | None,
) -> type[ViewSetMixin]:
    """`viewset` with `action` generated from `fast`: the schema metadata (`extend_schema`,
    `api_errors`, the docstring) copied onto a handler that DRF reaches only for HEAD."""

    def handler(self: Any, request: Request, **kwargs: object) -> HttpResponse:
        return fast(request._request, **kwargs)

    functools.update_wrapper(handler, fast)
    attrs: dict[str, Any] = {action: handler, "__module__": fast.__module__}
    if permission_classes is not None:
        attrs["permission_classes"] = list(permission_classes)
    return type(f"{viewset.__name__}For_{fast.__name__}", (viewset,), attrs)


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
