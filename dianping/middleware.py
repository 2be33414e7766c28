"""What every answer of the server carries, and what it refuses before a view runs.

One middleware, the first, so the hot paths pay one hop for all of it:
- every request has an id (its `X-Request-ID` if short and plain, else a new one) for the
  log lines written while it is served, sent back as `X-Request-ID` on every answer
  (dianping/logs.py);
- a body over the route's limit is a JSON 413 before anything reads it (the upload route
  takes a picture's worth, every other route DATA_UPLOAD_MAX_MEMORY_SIZE);
- a body no view read (a 413, a 429, a 401, a busy upload's 503) is read and discarded
  before the answer goes out, within BODY_DRAIN_SECONDS and BODY_DRAIN_BYTES: a server
  that answers and closes while the client is still sending makes many clients (Python's
  urllib, for one) fail with a broken pipe or a reset instead of reading the answer;
- a method the route does not serve is a JSON 405 with `Allow`, before authentication
  (DRF would authenticate first and answer an anonymous TRACE with 401);
- Redis unreachable is a 503 with Retry-After on any route (SPEC §0 "Durability");
- headers: a Content-Security-Policy without inline script, a Permissions-Policy, and
  `Cache-Control: no-store` on every JSON answer to a request that carried a token (a
  redeem code, an order, a profile must not sit in a shared or browser cache).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.log import log_response

from dianping import images, logs
from dianping.api.exceptions import domain_error_json, redis_outage
from dianping.errors import MethodNotAllowed, PayloadTooLarge
from dianping.redis.outage import OUTAGE_ERRORS

UPLOAD_PATH = "/api/uploads"
UPLOAD_OVERHEAD = 64 * 1024  # multipart boundaries and headers around the picture
_DRAIN_CHUNK = 64 * 1024  # small reads: the drain's deadline is looked at between them


class GuardMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.body_limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        self.upload_limit = images.MAX_BYTES + UPLOAD_OVERHEAD
        self.headers = {
            "Content-Security-Policy": settings.CONTENT_SECURITY_POLICY,
            "Permissions-Policy": settings.PERMISSIONS_POLICY,
        }

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request_id = logs.accepted_request_id(request.META.get(logs.META_KEY))
        id_token = logs.request_id.set(request_id)
        user_token = logs.user_id.set(None)  # until a login token tells (accounts.tokens)
        try:
            response = self._too_large(request) or self.get_response(request)
            if response.status_code >= 400:
                # Django's own line for it, written here while the ids are set (its
                # handler writes it after the middleware, and skips a response logged).
                log_response(
                    "%s: %s", response.reason_phrase, request.path,
                    response=response, request=request,
                )  # fmt: skip
            if request.META.get("CONTENT_LENGTH") not in (None, "", "0"):
                _discard_unread_body(request)
        finally:
            logs.request_id.reset(id_token)
            logs.user_id.reset(user_token)
        response[logs.HEADER] = request_id
        for name, value in self.headers.items():
            response.headers.setdefault(name, value)
        if (
            "HTTP_AUTHORIZATION" in request.META
            and response.get("Content-Type", "").startswith("application/json")
            and "Cache-Control" not in response
        ):
            response["Cache-Control"] = "no-store"
        return response

    def _too_large(self, request: HttpRequest) -> HttpResponse | None:
        length = request.META.get("CONTENT_LENGTH")
        if not length or not request.path.startswith("/api/"):
            return None  # no body; or Django's own limits, on its own pages
        limit = self.upload_limit if request.path == UPLOAD_PATH else self.body_limit
        if length.isdigit() and int(length) > limit:
            return domain_error_json(PayloadTooLarge())
        return None

    def process_view(
        self, request: HttpRequest, view: Any, args: tuple, kwargs: dict[str, Any]
    ) -> HttpResponse | None:
        allowed = _allowed_methods(view)
        if allowed is None or request.method in allowed:
            return None
        return domain_error_json(MethodNotAllowed(request.method, allowed))

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        """Redis unreachable where no view handled it (the admin's sessions, a page): a
        503 with Retry-After, never a 500; JSON on /api/ paths."""
        if not isinstance(exception, OUTAGE_ERRORS):
            return None
        error = redis_outage(request)
        if request.path.startswith("/api/"):
            return domain_error_json(error)
        return HttpResponse(
            error.detail, status=503, content_type="text/plain; charset=utf-8",
            headers={"Retry-After": str(error.retry_after)},
        )  # fmt: skip


def _discard_unread_body(request: HttpRequest) -> None:
    """Read whatever is left of the body (nothing, if the view parsed it). Past the time
    or byte bound the server closes the connection anyway: a client that sends 10 GB of
    body to a route that takes 1 MB gets its 413 only if it reads while it sends."""
    stream = getattr(request, "_stream", None)
    declared = request.META.get("CONTENT_LENGTH", "")
    if stream is None or (declared.isdigit() and int(declared) > settings.BODY_DRAIN_BYTES):
        return  # nothing to read; or more than the bound: reading part of it helps nobody
    deadline = time.monotonic() + settings.BODY_DRAIN_SECONDS
    left = settings.BODY_DRAIN_BYTES
    while left > 0 and time.monotonic() < deadline:
        try:
            chunk = stream.read(min(left, _DRAIN_CHUNK))
        except OSError:  # the client went away
            return
        if not chunk:
            return
        left -= len(chunk)


def _allowed_methods(view: Any) -> frozenset[str] | None:
    """The methods a DRF view serves (a viewset's routed actions, an APIView's handlers),
    OPTIONS and HEAD included where DRF answers them; None for a plain Django view, which
    answers every method itself."""
    cached = getattr(view, "_allowed_methods", None)
    if cached is not None:
        return cached
    actions = getattr(view, "actions", None)
    cls = getattr(view, "cls", None)
    if actions is not None:
        methods = {method.upper() for method in actions}
    elif cls is not None:
        methods = {m.upper() for m in cls.http_method_names if hasattr(cls, m)}
    else:
        return None
    methods.add("OPTIONS")
    if "GET" in methods:
        methods.add("HEAD")
    allowed = frozenset(methods)
    view._allowed_methods = allowed
    return allowed
