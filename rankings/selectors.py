"""The rankings read: one HMGET of the list and the city's `meta`, queued on the caller's
token round trip; the cards' `open_now` computed here and, for a signed-in reader, their
`saved` markers in one more round trip (the ids come from the reply)."""

from __future__ import annotations

from typing import Any

import orjson

from shops import hours
from toolkit import clock
from toolkit.api import saved

from . import keys
from .services import META, area_field, type_field

EMPTY_LISTS = {"type_ids": [], "areas": []}


def list_field(*, type_id: int | None, area: str | None) -> str:
    return type_field(type_id) if type_id is not None else area_field(area or "")


def queue_ranking(pipe: Any, city_id: int, field: str) -> None:
    pipe.hmget(keys.rankings(city_id), [field, META])


def ranking_answer(reply: list[bytes | None], viewer_id: int | None) -> dict[str, Any]:
    """The answer from the HMGET's reply: the list, or an empty one of the stored week
    (null before the first computation: decision 412), and the city's lists."""
    raw, meta_raw = reply
    meta = orjson.loads(meta_raw) if meta_raw else None
    if raw:
        body = orjson.loads(raw)
    else:
        body = {
            "week": meta["week"] if meta else None,
            "computed_at": meta["computed_at"] if meta else None,
            "results": [],
        }
    body["lists"] = {"type_ids": meta["type_ids"], "areas": meta["areas"]} if meta else EMPTY_LISTS
    cards = [entry["shop"] for entry in body["results"]]
    at = clock.now()
    for card in cards:
        card["open_now"] = hours.open_now(card.get("hours"), at)
    saved.mark(cards, saved.saved_states(viewer_id, saved.SHOP, [c["id"] for c in cards]))
    return body
