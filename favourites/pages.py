"""The first page of "my favourites" per user and kind, kept in Redis (decision 424): read
on the token's own round trip, so the list's usual first read costs no database query.

Only the rows are kept (favourite id, target id, saved at; the next `last_id`), never the
cards, which come from their caches at every read. Every sync of a favourite after its
commit (services._sync: saves, unsaves, repeats, rows deleted past the services) writes
a new generation for its user and kind and drops the page. A page is stored with the
generation read before its query ran and used only while that is still the current one,
so a page read from the database before a change and stored after its sync is never
served (its generation is already the old one)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

import orjson

from toolkit.redis.client import get_redis

from . import keys
from .kinds import KINDS

TTL = 24 * 60 * 60  # seconds: an idle user's pages leave Redis
Row = tuple[int, int, datetime]  # (favourite id, target id, saved at)
Page = tuple[list[Row], int | None]  # the rows and the next `last_id`


def _generation_field(kind: str) -> str:
    return f"g:{kind}"


def queue_page(pipe: Any, user_id: int, kind: str) -> None:
    """Queue the read of the user's first page of `kind` and its generation (one HMGET)."""
    pipe.hmget(keys.favourites_first_pages(user_id), [kind, _generation_field(kind)])


def page_from(reply: list[bytes | None]) -> tuple[Page | None, bytes]:
    """(the page, None unless stored and of the current generation; that generation, to
    store a page read from the database with)."""
    raw, generation = reply
    current = generation or b""
    if raw is None:
        return None, current
    stored = orjson.loads(raw)
    if stored["g"].encode() != current:
        return None, current
    rows = [(row, target, datetime.fromisoformat(at)) for row, target, at in stored["rows"]]
    return (rows, stored["next"]), current


def store_page(user_id: int, kind: str, generation: bytes, page: Page) -> None:
    """Keep a first page read from the database, marked with the generation read before
    its query (no harm if it is an old one by now: it is never served)."""
    rows, next_last_id = page
    value = orjson.dumps(
        {
            "g": generation.decode(),
            "rows": [(row_id, object_id, at.isoformat()) for row_id, object_id, at in rows],
            "next": next_last_id,
        }
    )
    pipe = get_redis().pipeline(transaction=False)
    pipe.hset(keys.favourites_first_pages(user_id), kind, value)
    pipe.expire(keys.favourites_first_pages(user_id), TTL)
    pipe.execute()


def queue_changed(pipe: Any, user_id: int, kind: str) -> None:
    """Queue a new generation of the user's `kind` (and drop its page): a page read from
    the database before now is never served. Same tag as the favourites set."""
    key = keys.favourites_first_pages(user_id)
    pipe.hset(key, _generation_field(kind), uuid.uuid4().hex)
    pipe.hdel(key, kind)
    pipe.expire(key, TTL)


def known_kind(kind: str | None) -> bool:
    return kind in KINDS
