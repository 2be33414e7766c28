"""Where a result matched, as data, never as markup: a field's text cut into fragments,
each `{"text": ..., "hit": bool}`; clients render hits (a <mark>) from text nodes.

The work is bounded by what is shown, never by the text's length (decision 278): the
first hit is looked for in the first LOCATE_MAX characters only, a chunk at a time, and
hits are marked only inside the window returned (and the few characters either side), at
most HITS_PER_TERM separate hits of a term and HITS_PER_FIELD in all. A text is
normalized a slice at a time, never whole."""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from .tokenizer import TERM_MAX, normalize

ELLIPSIS = "…"
SHOWN_MAX = 256  # characters of a field shown whole (names, titles: shorter by validation)
LOCATE_MAX = 1024  # characters searched for the first hit; none there: the text's start
# Separate hits marked in one field, of one term (a repeated word cannot take the marks
# of the others) and of all terms; occurrences that overlap or touch make one hit.
HITS_PER_TERM = 16
HITS_PER_FIELD = 48
_CHUNK = 128  # characters normalized at a time while looking for the first hit
# Characters either side of a slice normalized with it, so that a hit across its edge is
# still seen (a term is at most TERM_MAX characters).
_MARGIN = TERM_MAX


def fragments(text: str, query_terms: list[str], *, window: int | None = None) -> list[dict]:
    """`text` as fragments, the occurrences of any query term marked. With `window`, a
    long text is cut to about that many characters around its first hit; without, a
    text longer than SHOWN_MAX is cut as with a window of SHOWN_MAX. A short text shown
    whole (a name, a title, an address) is marked once per process for a set of terms
    (`_whole`, decision 306): the same shops come back for the same words. The list is
    shared: callers send it, never change it."""
    shown = window if window is not None else SHOWN_MAX
    if len(text) <= min(shown, _REMEMBERED_MAX):
        return _whole(text, tuple(query_terms))
    return _fragments(text, query_terms, shown)


# Texts of at most _REMEMBERED_MAX characters (at most 97 fragments each, HITS_PER_FIELD)
# in at most 2,048 entries: well under 20 MB however the queries are chosen.
_REMEMBERED_MAX = 128


@functools.lru_cache(maxsize=2048)
def _whole(text: str, query_terms: tuple[str, ...]) -> list[dict]:
    return _fragments(text, list(query_terms), SHOWN_MAX)


def _fragments(text: str, query_terms: list[str], shown: int) -> list[dict]:
    finder, marker = _patterns(tuple(query_terms))
    start, end = 0, len(text)
    if len(text) > shown:
        first = _first_hit(text, finder) if finder else 0
        start = max(0, min(first - shown // 4, len(text) - shown))
        end = start + shown
    hits = _hit_mask(text, start, end, marker) if marker else [False] * (end - start)
    out: list[dict[str, Any]] = []
    if start > 0:
        out.append({"text": ELLIPSIS, "hit": False})
    i = 0
    while i < end - start:
        j = i
        while j < end - start and hits[j] == hits[i]:
            j += 1
        out.append({"text": text[start + i : start + j], "hit": hits[i]})
        i = j
    if end < len(text):
        out.append({"text": ELLIPSIS, "hit": False})
    return out


@functools.lru_cache(maxsize=256)
def _patterns(terms: tuple[str, ...]) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None]:
    """(a pattern whose search finds the first occurrence of any term, one whose finditer
    yields at every position the longest term that starts there). One regex scans a slice
    once for all the terms, in C, where a find per term would pay Python per term."""
    if not terms:
        return None, None
    alternatives = "|".join(re.escape(t) for t in sorted(set(terms), key=len, reverse=True))
    return re.compile(alternatives), re.compile(f"(?=({alternatives}))")


def _first_hit(text: str, finder: re.Pattern[str]) -> int:
    """Where in `text` the first hit starts, looked for in its first LOCATE_MAX
    characters a chunk at a time (a text whose hit lies further, or that matched in
    another field, shows its start: 0). Only the chunk that holds the hit is mapped
    back character by character."""
    for at in range(0, min(len(text), LOCATE_MAX), _CHUNK):
        chunk = text[at : at + _CHUNK + _MARGIN]
        if finder.search(normalize(chunk)) is None:
            continue
        haystack, origin = _normalized(chunk)
        found = finder.search(haystack)
        return at + (origin[found.start()] if found is not None else 0)
    return 0


def _hit_mask(text: str, start: int, end: int, marker: re.Pattern[str]) -> list[bool]:
    """Per character of `text[start:end]`, whether it is inside an occurrence of a term.
    Terms are matched on the normalized slice (full width, case, accents), mapped back
    to the original characters; each character is marked once, however many terms and
    occurrences cover it, so the work is bounded by the slice's length."""
    low, high = max(0, start - _MARGIN), min(len(text), end + _MARGIN)
    haystack, origin = _normalized(text[low:high])
    mask = [False] * (end - start)
    hits: Counter[str] = Counter()  # separate hits of each term, and of all
    marked = -1  # haystack positions before this one are marked already
    for found in marker.finditer(haystack):
        term, begin = found.group(1), found.start()
        if begin > marked:  # a hit of its own, not one that continues the run before it
            if hits[term] == HITS_PER_TERM:
                continue
            if hits.total() == HITS_PER_FIELD:
                break
            hits[term] += 1
        for k in range(max(begin, marked), begin + len(term)):
            at = low + origin[k] - start
            if 0 <= at < len(mask):
                mask[at] = True
        marked = max(marked, begin + len(term))
    return mask


def _normalized(piece: str) -> tuple[str, Sequence[int]]:
    """`piece` normalized, and for each of its characters the index in `piece` of the
    character it came from: one for one when normalizing kept the length (most text;
    normalizing the piece whole is ten times cheaper), else character by character."""
    haystack = normalize(piece)
    if len(haystack) == len(piece):
        return haystack, range(len(piece))
    pieces = [_normalize_char(char) for char in piece]
    return "".join(pieces), [index for index, part in enumerate(pieces) for _ in part]


@functools.lru_cache(maxsize=4096)
def _normalize_char(char: str) -> str:
    return normalize(char)
