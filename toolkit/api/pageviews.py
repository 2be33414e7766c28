"""A page view counted from an app that must not import traffic (search, its sibling in
the layers): the function the API_PAGE_VIEWS setting names (traffic.visitors.count_page)
buffers it for the visits flusher, so the read pays a list append, no round trip."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from django.conf import settings
from django.utils.module_loading import import_string


@cache
def _count_page() -> Callable[..., None]:
    return import_string(settings.API_PAGE_VIEWS)


def count_page(request: Any, kind: str, user_id: int | None) -> None:
    """Count a view of a page of `kind` (traffic.visits.PAGE_KINDS) by the caller."""
    _count_page()(request, kind, user_id)
