"""Where a result matched, as data, never as markup: a field's text cut into fragments,
each `{"text": ..., "hit": bool}`; clients render hits (a <mark>) from text nodes."""

from __future__ import annotations

from typing import Any

from .tokenizer import normalize

ELLIPSIS = "…"


def fragments(text: str, query_terms: list[str], *, window: int | None = None) -> list[dict]:
    """`text` as fragments, the occurrences of any query term marked. With `window`, a
    long text is cut to about that many characters around its first hit."""
    hits = _hit_mask(text, query_terms)
    start, end = 0, len(text)
    if window is not None and len(text) > window:
        first = hits.index(True) if True in hits else 0
        start = max(0, min(first - window // 4, len(text) - window))
        end = start + window
    out: list[dict[str, Any]] = []
    if start > 0:
        out.append({"text": ELLIPSIS, "hit": False})
    i = start
    while i < end:
        j = i
        while j < end and hits[j] == hits[i]:
            j += 1
        out.append({"text": text[i:j], "hit": hits[i]})
        i = j
    if end < len(text):
        out.append({"text": ELLIPSIS, "hit": False})
    return out


def _hit_mask(text: str, query_terms: list[str]) -> list[bool]:
    """Per character of `text`, whether it is inside an occurrence of a term. Terms are
    matched on the normalized text (full width, case, accents), mapped back to the original:
    character by character only when normalizing changed the length (rare: most text keeps
    one character for one, and normalizing it whole is ten times cheaper)."""
    haystack = normalize(text)
    if len(haystack) == len(text):
        origin: range | list[int] = range(len(text))
    else:
        pieces = [normalize(char) for char in text]
        haystack = "".join(pieces)
        origin = [index for index, piece in enumerate(pieces) for _ in piece]
    mask = [False] * len(text)
    for term in query_terms:
        at = haystack.find(term)
        while at != -1:
            for k in range(at, at + len(term)):
                mask[origin[k]] = True
            at = haystack.find(term, at + 1)
    return mask
