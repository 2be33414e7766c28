"""How a list is stored in the city's rankings hash (decision 426): pieces of JSON joined by
NUL bytes (which JSON text never holds raw), so that a read splices each card's `open_now`
and `saved` into the shop's bytes instead of decoding 50 cards and encoding them again.

    v2 \\0 {"week":…,"computed_at":…} \\0 id,id,… \\0 shop JSON \\0 score \\0 shop JSON \\0 score …

The ids let a read check the saved markers it queued for the ids it guessed. A list of
the format before (one JSON answer, starting with `{`) is still read, until the next
computation replaces it (docs/operations.md)."""

from __future__ import annotations

from typing import Any, NamedTuple

import orjson

_TAG = b"v2"
_SEP = b"\0"


class Stored(NamedTuple):
    head: bytes  # {"week": …, "computed_at": …}
    ids: bytes  # the shops' ids, comma separated, best first
    shops: list[bytes]  # each shop's document as JSON (without `open_now` and `saved`)
    scores: list[bytes]  # each entry's score as JSON


def encode(*, week: str, computed_at: str, entries: list[tuple[dict[str, Any], float]]) -> bytes:
    """A list as stored: (shop document, score) best first; the rank is the position."""
    pieces = [
        _TAG,
        orjson.dumps({"week": week, "computed_at": computed_at}),
        b",".join(b"%d" % shop["id"] for shop, _ in entries),
    ]
    for shop, score in entries:
        pieces += [orjson.dumps(shop), orjson.dumps(score)]
    return _SEP.join(pieces)


def decode(raw: bytes) -> Stored | None:
    """The stored list's pieces; None for a list of the format before (a JSON answer)."""
    if not raw.startswith(_TAG + _SEP):
        return None
    pieces = raw.split(_SEP)
    return Stored(pieces[1], pieces[2], pieces[3::2], pieces[4::2])


def as_answer(raw: bytes) -> dict[str, Any]:
    """The stored list as a decoded answer without `open_now`, `saved` and `lists` (for
    maintenance and tests), of either format."""
    stored = decode(raw)
    if stored is None:
        return orjson.loads(raw)
    results = [
        {"rank": rank, "shop": orjson.loads(shop), "score": orjson.loads(score)}
        for rank, (shop, score) in enumerate(zip(stored.shops, stored.scores, strict=True), 1)
    ]
    return {**orjson.loads(stored.head), "results": results}
