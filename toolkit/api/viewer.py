"""The caller of a fast-path read, for apps that must not import accounts (search, which
accounts itself uses): their token refreshed as DRF's authentication would, by the
function the API_VIEWER setting names (accounts.tokens.touch_with)."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django.utils.module_loading import import_string


@cache
def _touch_with() -> Callable[..., tuple[dict[str, Any] | None, list[Any]]]:
    return import_string(settings.API_VIEWER)


def touch_viewer(request: HttpRequest) -> dict[str, Any] | None:
    """The signed-in caller's public data (their token's TTL reset), or None."""
    viewer, _ = _touch_with()(request)
    return viewer
