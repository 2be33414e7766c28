"""One place that turns every error into the shape {"detail", "code"} (docs/product/errors.md)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.db.models import ProtectedError, RestrictedError
from django.http import Http404, HttpRequest, JsonResponse
from django.utils.translation import gettext
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from toolkit.errors import (
    Code,
    Conflict,
    DomainError,
    MethodNotAllowed,
    NotAuthenticated,
    PayloadTooLarge,
    RateLimited,
    ServiceUnavailable,
)
from toolkit.redis.outage import OUTAGE_ERRORS
from toolkit.transactions import is_lock_conflict


def domain_error_headers(exc: DomainError) -> dict[str, str] | None:
    if isinstance(exc, RateLimited | ServiceUnavailable):
        return {"Retry-After": str(exc.retry_after)}
    if isinstance(exc, NotAuthenticated):
        return {"WWW-Authenticate": 'Bearer realm="api"'}
    if isinstance(exc, MethodNotAllowed):
        return {"Allow": exc.allowed}
    return None


def _domain_error_body(exc: DomainError) -> dict[str, str]:
    # `detail` follows the request's language; `code` is the contract and never does.
    return {"detail": str(exc.detail), "code": exc.code}


def _validation_error_body(errors: dict[str, Any] | list[Any]) -> dict[str, Any]:
    return {"detail": gettext("Invalid input."), "code": Code.INVALID, "errors": errors}


# As DRF's renderer writes JSON: compact, and UTF-8 rather than \u escapes (a Chinese
# `detail` stays readable in curl).
_AS_DRF = {"ensure_ascii": False, "separators": (",", ":")}


def json_error(
    body: dict[str, Any], status: int, headers: dict[str, str] | None = None
) -> JsonResponse:
    """An error body as DRF's renderer sends one (compact, UTF-8 unescaped), for the
    plain-Django paths and Django's own error handlers."""
    return JsonResponse(body, status=status, headers=headers, json_dumps_params=_AS_DRF)


def domain_error_json(exc: DomainError) -> JsonResponse:
    """The same answer as the DRF handler's, for the plain-Django paths."""
    return json_error(_domain_error_body(exc), exc.status_code, domain_error_headers(exc))


def validation_error_json(errors: dict[str, Any] | list[Any]) -> JsonResponse:
    """The DRF handler's 400 for invalid input, for the plain-Django paths."""
    return json_error(_validation_error_body(errors), 400)


def redis_outage(request: HttpRequest) -> ServiceUnavailable:
    """The 503 for a call that needed an unreachable Redis: one carrying a token says that
    the sign-in is what cannot be checked (tokens live in Redis only)."""
    if "HTTP_AUTHORIZATION" in request.META:
        return ServiceUnavailable(
            gettext("Sign-ins cannot be checked right now; try again shortly.")
        )
    return ServiceUnavailable()


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, OUTAGE_ERRORS):
        exc = redis_outage(context["request"])
    elif isinstance(exc, RequestDataTooBig):
        exc = PayloadTooLarge()
    elif is_lock_conflict(exc):  # still, after retry_on_lock_conflict's attempts
        exc = ServiceUnavailable(gettext("Busy right now; try again."), Code.BUSY)
    elif isinstance(exc, ProtectedError | RestrictedError):
        # A backstop: services refuse such deletes themselves, with a reason of their own.
        exc = Conflict(
            gettext("Other records still point at this; it cannot be deleted."), Code.IN_USE
        )
    if isinstance(exc, DomainError):
        body = _domain_error_body(exc)
        return Response(body, exc.status_code, headers=domain_error_headers(exc))
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()

    response = drf_exception_handler(exc, context)
    if response is None:
        return None  # not an API error: Django's 500 handler takes over
    if isinstance(exc, exceptions.ValidationError):
        errors = (
            response.data
            if isinstance(response.data, dict)
            else {"non_field_errors": response.data}
        )
        response.data = _validation_error_body(errors)
    elif isinstance(exc, exceptions.APIException):
        codes = exc.get_codes()
        response.data = {
            "detail": str(exc.detail),
            "code": codes if isinstance(codes, str) else "error",
        }
    return response
