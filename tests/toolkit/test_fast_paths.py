"""One door per hot endpoint (decision 450): the plain function serves its method and is
its documentation; no hand-written viewset method stands beside it for the same method,
and the route's other methods still get DRF's answers."""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest, HttpResponse
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework import viewsets

from toolkit.api.fastpath import fast_path, json_response


def _callbacks(patterns: list[Any]) -> Iterator[tuple[str, Any]]:
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            for route, callback in _callbacks(pattern.url_patterns):
                yield str(pattern.pattern) + route, callback
        elif isinstance(pattern, URLPattern):
            yield str(pattern.pattern), pattern.callback


FAST_PATHS = [
    (route, view)
    for route, view in _callbacks(get_resolver().url_patterns)
    if hasattr(view, "fast_method")
]


def test_every_hot_endpoint_is_found() -> None:
    routes = {route for route, _ in FAST_PATHS}
    assert len(FAST_PATHS) >= 22
    assert {"api/shops/<id:shop_id>", "api/vouchers/<id:voucher_id>/seckill"} <= routes


@pytest.mark.parametrize(("route", "view"), FAST_PATHS, ids=[r for r, _ in FAST_PATHS])
def test_no_viewset_method_shadows_a_fast_path(route: str, view: Any) -> None:
    action = view.actions[view.fast_method.lower()]
    assert action == view.fast_action
    # The viewset the route's other methods go to: the generated class's bases. None of
    # them may hold a handler for the fast method: it would be a second door that only
    # HEAD (or nothing at all) reaches.
    for written in view.cls.__mro__[1:]:
        assert action not in vars(written), f"{written.__name__}.{action} shadows {route}"
    # The one handler there is, generated, calls the documented function itself.
    fast = inspect.unwrap(view)
    assert getattr(view.cls, action).__wrapped__ is fast
    assert fast.__doc__  # the operation's description
    assert "schema" in fast.kwargs  # extend_schema's, on the function


def _answer(request: HttpRequest) -> HttpResponse:
    """An answer."""
    return json_response({})


def test_a_viewset_method_for_the_fast_action_is_refused() -> None:
    class Shadowing(viewsets.ViewSet):
        def retrieve(self, request: Any) -> HttpResponse:
            return json_response({})

    with pytest.raises(ImproperlyConfigured, match="second door"):
        fast_path("GET", "retrieve", viewset=Shadowing)(_answer)
    with pytest.raises(ImproperlyConfigured, match="the fast path's"):
        fast_path("GET", "list", actions={"get": "list"})


def test_a_fast_path_without_a_docstring_is_refused() -> None:
    def undocumented(request: HttpRequest) -> HttpResponse:
        return json_response({})

    with pytest.raises(ImproperlyConfigured, match="docstring"):
        fast_path("GET", "list")(undocumented)


@pytest.mark.django_db
def test_other_methods_and_head_still_go_through_drf(api, staff_api) -> None:
    # HEAD: DRF's permission check first, then the same function as GET.
    assert api.head("/api/feed").status_code == 401
    assert api.head("/api/rankings").status_code == 400  # no list named: the function's
    assert staff_api.head("/api/feed").status_code == 200
    # Other methods: DRF's 405, `Allow` naming the route's methods, the fast one too.
    for path, allow in (
        ("/api/feed", "GET, HEAD, OPTIONS"),
        ("/api/shops", "GET, HEAD, OPTIONS, POST"),
        ("/api/vouchers/1/seckill", "OPTIONS, POST"),
    ):
        refused = staff_api.put(path, {}, format="json")
        assert refused.status_code == 405, path
        assert refused["Allow"] == allow
