"""Search reads: a page of one kind's documents matching a query, each as its kind's list
item with the fields that matched marked."""

from __future__ import annotations

from typing import Any

from . import highlight
from .backends import backend
from .documents import source

CONTENT_WINDOW = 80  # characters of a long text shown around its first hit
_LONG_TEXT = 120


def search(
    *,
    kind: str,
    query_terms: list[str],
    offset: int,
    limit: int,
    viewer_id: int | None,
    city: str | None = None,
) -> tuple[int, list[dict[str, Any]]]:
    """(how many documents match, a page of them as items with a `highlight`); of the
    kinds that are in a city, only those of `city` (a code; the default city when None)."""
    docs = source(kind)
    where = docs.scope(city=city)  # before the query: an unknown city is refused either way
    total, ids = backend().search(docs, query_terms, offset=offset, limit=limit, where=where)
    items = docs.items(ids, viewer_id=viewer_id) if ids else {}
    page = []
    for object_id in ids:
        item = items.get(object_id)
        if item is None:  # deleted since it was indexed: its refresh is on its way
            continue
        item["highlight"] = {
            name: highlight.fragments(
                item.get(name) or "",
                query_terms,
                window=CONTENT_WINDOW if len(item.get(name) or "") > _LONG_TEXT else None,
            )
            for name in docs.highlighted
        }
        page.append(item)
    return total, page
