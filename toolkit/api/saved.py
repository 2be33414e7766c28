"""The signed-in reader's `saved` markers (favourites) on cards and detail pages: one
SMISMEMBER on the reader's set of that kind, queued on the page's own pipeline, so the
markers share the round trip of the rest of its live state (the token's refresh, likes,
live stock). The favourites app writes the sets and imports the apps whose cards carry
the marker; those apps read the markers here, so no two apps import each other
(decision 369)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from toolkit.redis import keys
from toolkit.redis.client import get_redis

SHOP, BLOG, VOUCHER = "shop", "blog", "voucher"


def queue_saved(pipe: Any, user_id: int | None, kind: str, ids: Sequence[int]) -> None:
    """Queue the reader's markers for `ids` (nothing for an anonymous reader or no ids);
    `read_saved` takes its reply off the front of the replies."""
    if user_id is not None and ids:
        pipe.smismember(keys.favourites(user_id, kind), list(ids))


def read_saved(
    replies: Sequence[Any], user_id: int | None, ids: Sequence[int]
) -> tuple[dict[int, bool], list[Any]]:
    """(each id's marker, the replies after the one `queue_saved` queued)."""
    if user_id is None or not ids:
        return dict.fromkeys(ids, False), list(replies)
    found, *rest = replies
    return {i: bool(hit) for i, hit in zip(ids, found, strict=True)}, rest


def saved_states(user_id: int | None, kind: str, ids: Sequence[int]) -> dict[int, bool]:
    """The markers in a round trip of their own, for reads whose ids come from an earlier
    reply (a GEO search); none for an anonymous reader or no ids."""
    if user_id is None or not ids:
        return dict.fromkeys(ids, False)
    pipe = get_redis().pipeline(transaction=False)
    queue_saved(pipe, user_id, kind, ids)
    return read_saved(pipe.execute(), user_id, ids)[0]


def mark(documents: Iterable[dict[str, Any]], saved: dict[int, bool]) -> None:
    """Set each document's `saved` from the markers (by its `id`)."""
    for doc in documents:
        doc["saved"] = saved.get(doc["id"], False)
