"""The floor every request pays (dianping/middleware.py): the locale and messages
middleware that skip work on the bare view answer exactly as Django's own do."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib import messages
from django.contrib.messages.middleware import MessageMiddleware as DjangosMessageMiddleware
from django.contrib.sessions.middleware import SessionMiddleware
from django.http import HttpRequest, HttpResponse
from django.middleware.locale import LocaleMiddleware as DjangosLocaleMiddleware
from django.test import RequestFactory
from django.utils import translation

from dianping.middleware import LocaleMiddleware, MessageMiddleware

# (language cookie, Accept-Language): each chooses by another rule, and the order comes
# back round so that a remembered choice is asked for after others were remembered.
_CALLERS: list[tuple[str | None, str]] = [
    (None, ""),
    (None, "en"),
    ("en", "zh-CN,zh;q=0.9"),
    (None, "zh-CN,zh;q=0.9"),
    ("zh-hans", "en-GB,en;q=0.8"),
    (None, "fr-FR,fr;q=0.9"),
    ("xx", "en-US"),
    (None, "*"),
]


def _request(cookie: str | None, accept: str) -> HttpRequest:
    factory = RequestFactory()
    if cookie is not None:
        factory.cookies["django_language"] = cookie
    return factory.get("/api/ping", HTTP_ACCEPT_LANGUAGE=accept)


def _answer(middleware: type, cookie: str | None, accept: str, vary: str | None) -> tuple:
    def view(request: HttpRequest) -> HttpResponse:
        response = HttpResponse()
        if vary is not None:
            response["Vary"] = vary
        return response

    request = _request(cookie, accept)
    response = middleware(view)(request)
    return request.LANGUAGE_CODE, response.get("Content-Language"), response.get("Vary")


@pytest.mark.parametrize("vary", [None, "Cookie"])
def test_the_remembered_language_and_its_headers_are_djangos(vary) -> None:
    ours = LocaleMiddleware  # one instance per call below: each remembers on its own
    shared = ours(lambda request: HttpResponse(headers={"Vary": vary} if vary else {}))
    try:
        for cookie, accept in [*_CALLERS, *reversed(_CALLERS), *_CALLERS]:
            expected = _answer(DjangosLocaleMiddleware, cookie, accept, vary)
            request = _request(cookie, accept)
            response: Any = shared(request)
            got = (request.LANGUAGE_CODE, response.get("Content-Language"), response.get("Vary"))
            assert got == expected, (cookie, accept)
            assert _answer(ours, cookie, accept, vary) == expected
    finally:
        translation.deactivate()


def _through(middleware: type, view: Callable[[HttpRequest], HttpResponse]) -> Any:
    request = RequestFactory().get("/admin/")
    SessionMiddleware(lambda r: HttpResponse()).process_request(request)
    return middleware(view)(request)


def _adds(request: HttpRequest) -> HttpResponse:
    messages.success(request, "Revoked 4 live tokens.")
    return HttpResponse()


def _reads(request: HttpRequest) -> HttpResponse:
    return HttpResponse(" ".join(str(m) for m in messages.get_messages(request)))


def _untouched(request: HttpRequest) -> HttpResponse:
    return HttpResponse()


@pytest.mark.parametrize("view", [_adds, _reads, _untouched])
def test_a_message_is_stored_as_djangos_and_an_unused_storage_stores_nothing(view) -> None:
    ours, djangos = _through(MessageMiddleware, view), _through(DjangosMessageMiddleware, view)

    assert {k: v.value for k, v in ours.cookies.items()} == {
        k: v.value for k, v in djangos.cookies.items()
    }
    assert bool(ours.cookies) == (view is _adds)
