"""What every answer of the server carries, and what it refuses before a view runs.

One middleware, the first, so the hot paths pay one hop for all of it:
- every request has an id (its `X-Request-ID` if short and plain, else a new one) for the
  log lines written while it is served, sent back as `X-Request-ID` on every answer
  (toolkit/logs.py);
- a body over the route's limit is a JSON 413 before anything reads it (the upload route
  takes a picture's worth, every other route DATA_UPLOAD_MAX_MEMORY_SIZE);
- a body no view read (a 413, a 429, a 401, a busy upload's 503) is read and discarded
  before the answer goes out, within BODY_DRAIN_SECONDS and BODY_DRAIN_BYTES: a server
  that answers and closes while the client is still sending makes many clients (Python's
  urllib, for one) fail with a broken pipe or a reset instead of reading the answer;
- a method the route does not serve is a JSON 405 with `Allow`, before authentication
  (DRF would authenticate first and answer an anonymous TRACE with 401);
- Redis unreachable is a 503 with Retry-After on any route (docs/product/durability.md#redis-down);
- headers: a Content-Security-Policy without inline script, a Permissions-Policy, and
  `Cache-Control: no-store` on every JSON answer to a request that carried a token (a
  redeem code, an order, a profile must not sit in a shared or browser cache).

Below it, Django's locale and messages middleware, each doing on the bare view only what
its answer needs (the floor every request pays, docs/benchmarks.md).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.conf.urls.i18n import is_language_prefix_patterns_used
from django.contrib.messages.middleware import MessageMiddleware as _MessageMiddleware
from django.contrib.messages.storage import default_storage
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.middleware.locale import LocaleMiddleware as _LocaleMiddleware
from django.utils import translation
from django.utils.functional import SimpleLazyObject, empty
from django.utils.log import log_response

from pictures import images
from toolkit import logs
from toolkit.api.exceptions import domain_error_json, redis_outage
from toolkit.errors import MethodNotAllowed, PayloadTooLarge
from toolkit.redis.outage import OUTAGE_ERRORS

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
                    "%s: %s",
                    response.reason_phrase,
                    request.path,
                    response=response,
                    request=request,
                )
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
            error.detail,
            status=503,
            content_type="text/plain; charset=utf-8",
            headers={"Retry-After": str(error.retry_after)},
        )


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
        return None if cached is _ANY_METHOD else cached
    actions = getattr(view, "actions", None)
    cls = getattr(view, "cls", None)
    if actions is not None:
        methods = {method.upper() for method in actions}
    elif cls is not None:
        methods = {m.upper() for m in cls.http_method_names if hasattr(cls, m)}
    else:
        with contextlib.suppress(AttributeError):  # a bound method: asked again next time
            view._allowed_methods = _ANY_METHOD
        return None
    methods.add("OPTIONS")
    if "GET" in methods:
        methods.add("HEAD")
    allowed = frozenset(methods)
    view._allowed_methods = allowed
    return allowed


_ANY_METHOD = frozenset({"*"})  # remembered on a plain Django view: it answers every method


class LocaleMiddleware(_LocaleMiddleware):
    """Django's, answering the same language and headers, with what the bare view paid
    for on every request remembered: the language chosen for a (language cookie,
    Accept-Language) pair, and whether the URLs have language prefixes (they do not
    here: then the path is never looked at). Django's own code runs where they do."""

    _MEMO_SIZE = 1024  # distinct (cookie, Accept-Language) pairs; emptied when full
    _MEMO_KEY_CHARS = 256  # longer pairs are worked out each time, not remembered

    def __init__(self, get_response: Any) -> None:
        super().__init__(get_response)
        self._languages: dict[tuple[str | None, str], str] = {}

    def process_request(self, request: HttpRequest) -> None:
        urlconf = getattr(request, "urlconf", settings.ROOT_URLCONF)
        if is_language_prefix_patterns_used(urlconf)[0]:
            return super().process_request(request)
        key = (
            request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME),
            request.META.get("HTTP_ACCEPT_LANGUAGE", ""),
        )
        language = self._languages.get(key)
        if language is None:
            language = translation.get_language_from_request(request, check_path=False)
            if len(key[0] or "") + len(key[1]) <= self._MEMO_KEY_CHARS:
                if len(self._languages) >= self._MEMO_SIZE:
                    self._languages.clear()
                self._languages[key] = language
        translation.activate(language)
        request.LANGUAGE_CODE = translation.get_language()
        return None

    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        urlconf = getattr(request, "urlconf", settings.ROOT_URLCONF)
        if is_language_prefix_patterns_used(urlconf)[0] or response.has_header("Vary"):
            return super().process_response(request, response)
        # What patch_vary_headers and setdefault write on an answer with no Vary yet.
        response["Vary"] = "Accept-Language"
        response.headers.setdefault("Content-Language", translation.get_language())
        return response


class MessageMiddleware(_MessageMiddleware):
    """Django's, with each request's message storage made when first used: the API's
    requests never use it (only the admin's pages do), and a storage never used stores
    nothing into the answer, so an unused one need not be made at all."""

    def process_request(self, request: HttpRequest) -> None:
        request._messages = SimpleLazyObject(lambda: default_storage(request))  # type: ignore[attr-defined]

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        messages = getattr(request, "_messages", None)
        if isinstance(messages, SimpleLazyObject) and messages._wrapped is empty:
            return response
        return super().process_response(request, response)
