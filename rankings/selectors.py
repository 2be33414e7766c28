"""The rankings read: one HMGET of the list and the city's `meta`, queued on the caller's
token round trip, with a signed-in reader's `saved` markers for the ids this process last
saw in that list (decision 427); the cards' `open_now` and `saved` spliced into the
stored JSON (rankings.stored). The markers take one more round trip only when the list
changed since this process read it (or it never did)."""

from __future__ import annotations

import threading
from datetime import datetime
from typing import Any

import orjson

from shops import hours
from shops.selectors import with_open_now, with_saved
from toolkit import clock, runtime
from toolkit.api import saved

from . import keys, stored
from .services import META, area_field, type_field

EMPTY_LISTS: dict[str, list[Any]] = {"type_ids": [], "areas": []}
_MEMO_MAX = 4096

# (city, field) -> (the list's ids as stored, as ints): the guess of the next read's ids.
_ids: dict[tuple[int, str], tuple[bytes, list[int]]] = {}
# city -> (its `meta` as stored, its `lists` as JSON)
_lists: dict[int, tuple[bytes, bytes]] = {}
_lock = threading.Lock()


def list_field(*, type_id: int | None, area: str | None) -> str:
    return type_field(type_id) if type_id is not None else area_field(area or "")


class Read:
    """The reads of one answer, queued on the token's pipeline (`queue`, as `tokens.
    touch_with` calls it, once or again for the real viewer), and what they queued."""

    def __init__(self, city_id: int, field: str) -> None:
        self.city_id, self.field = city_id, field
        self.guessed: tuple[bytes, list[int]] | None = None

    def queue(self, pipe: Any, viewer_id: int | None) -> None:
        pipe.hmget(keys.rankings(self.city_id), [self.field, META])
        self.guessed = _ids.get((self.city_id, self.field)) if viewer_id is not None else None
        if self.guessed is not None:
            saved.queue_saved(pipe, viewer_id, saved.SHOP, self.guessed[1])

    def answer(self, replies: list[Any], viewer_id: int | None) -> bytes:
        """The answer's JSON from the replies: the list, or an empty one of the stored
        week (null before the first computation: decision 412), and the city's lists."""
        raw, meta_raw = replies[0]
        lists = _lists_json(self.city_id, meta_raw)
        found = stored.decode(raw) if raw else None
        if found is None:
            return (
                orjson.dumps(ranking_answer(raw, meta_raw, viewer_id))
                if raw
                else _empty(meta_raw, lists)
            )
        if self.guessed is not None and self.guessed[0] == found.ids:
            marks = [bool(hit) for hit in replies[1]]
        else:
            ids = [int(i) for i in found.ids.split(b",")] if found.ids else []
            states = saved.saved_states(viewer_id, saved.SHOP, ids)  # none if anonymous
            marks = [states[i] for i in ids]
            held = _ids.get((self.city_id, self.field))
            if held is None or held[0] != found.ids:
                _remember(_ids, (self.city_id, self.field), (found.ids, ids))
        return _spliced(found, marks, clock.now(), lists)


def _spliced(found: stored.Stored, marks: list[bool], at: datetime, lists: bytes) -> bytes:
    entries = [
        b'{"rank":%d,"shop":%b,"score":%b}'
        % (rank, with_saved(with_open_now(shop, at), mark), score)
        for rank, (shop, score, mark) in enumerate(
            zip(found.shops, found.scores, marks, strict=True), start=1
        )
    ]
    return b'%b,"results":[%b],"lists":%b}' % (found.head[:-1], b",".join(entries), lists)


def _empty(meta_raw: bytes | None, lists: bytes) -> bytes:
    meta = orjson.loads(meta_raw) if meta_raw else {"week": None, "computed_at": None}
    head = orjson.dumps({"week": meta["week"], "computed_at": meta["computed_at"]})
    return b'%b,"results":[],"lists":%b}' % (head[:-1], lists)


def _lists_json(city_id: int, meta_raw: bytes | None) -> bytes:
    """The city's `lists` from its `meta`, encoded once per computation and process."""
    if not meta_raw:
        return orjson.dumps(EMPTY_LISTS)
    held = _lists.get(city_id)
    if held is not None and held[0] == meta_raw:
        return held[1]
    meta = orjson.loads(meta_raw)
    lists = orjson.dumps({"type_ids": meta["type_ids"], "areas": meta["areas"]})
    _remember(_lists, city_id, (meta_raw, lists))
    return lists


def _remember(memo: dict[Any, Any], key: Any, value: Any) -> None:
    with _lock:
        if len(memo) >= _MEMO_MAX:
            memo.clear()
        memo[key] = value


def ranking_answer(raw: bytes, meta_raw: bytes | None, viewer_id: int | None) -> dict[str, Any]:
    """A list stored in the format before rankings.stored's (one JSON answer), as read
    before: decoded, `open_now` and `saved` set (the markers in a round trip of their
    own), encoded again. Until the next computation replaces it (docs/operations.md)."""
    body = orjson.loads(raw)
    meta = orjson.loads(meta_raw) if meta_raw else None
    body["lists"] = {"type_ids": meta["type_ids"], "areas": meta["areas"]} if meta else EMPTY_LISTS
    cards = [entry["shop"] for entry in body["results"]]
    at = clock.now()
    for card in cards:
        card["open_now"] = hours.open_now(card.get("hours"), at)
    saved.mark(cards, saved.saved_states(viewer_id, saved.SHOP, [c["id"] for c in cards]))
    return body


def _forget() -> None:
    with _lock:
        _ids.clear()
        _lists.clear()


runtime.register(
    runtime.Part("rankings-ids", reset=_forget, stop=lambda: None, after_fork=lambda: None)
)
