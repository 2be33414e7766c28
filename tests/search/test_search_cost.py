"""Search's work is bounded by what it shows, never by a note's length (decision 278).

The adversarial corpus: a note holding a short indexed run of one character, then
thousands more of it (every position of the run is an occurrence of the query's terms).
Work is counted, not timed (the machine's load would decide a time): the lines of Python
run, and for the highlighter also the memory it allocates, which a pass in C over the
whole text (a copy, a normalization) would show."""

from __future__ import annotations

import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from search import highlight, index
from search.tokenizer import query_terms
from tests.factories import BlogFactory

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / ".venv"
QUERY = "a" * 31 + " " + "a" * 32  # 64 characters: two terms of one character


def _note(char: str, length: int) -> str:
    """The indexed run (31 characters, a term), then `length` more of the character."""
    return char * 31 + " " + char * length


def _lines_run(call: Callable[[], Any], *, where: Callable[[str], bool]) -> int:
    """How many lines of Python `call()` runs in the files `where` accepts."""
    lines = 0

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal lines
        if event == "line":
            lines += 1
        return local

    def calls(frame: FrameType, event: str, arg: Any) -> Any:
        return local if where(frame.f_code.co_filename) else None

    previous = sys.gettrace()
    sys.settrace(calls)
    try:
        call()
    finally:
        sys.settrace(previous)
    return lines


def _peak_memory(call: Callable[[], Any]) -> int:
    """The most memory `call()` held at once, in bytes, beyond what it started with."""
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _highlight_cost(text: str) -> tuple[int, int]:
    terms = query_terms(QUERY)

    def call() -> None:
        highlight.fragments(text, terms, window=80)

    call()  # warm: the compiled patterns and per-character normalizations are cached
    return _lines_run(call, where=lambda _: True), _peak_memory(call)


def test_highlighting_a_note_costs_the_same_whatever_its_length() -> None:
    lines, memory = _highlight_cost(_note("a", 5_000))
    lines_10x, memory_10x = _highlight_cost(_note("a", 50_000))

    assert lines_10x == lines
    assert memory_10x <= memory + 1024  # not a byte per character of the text
    assert memory < 64 * 1024


@pytest.mark.django_db
def test_a_page_of_adversarial_notes_costs_the_same_work_whatever_their_length(
    api, fake_clock
) -> None:
    """The whole request, as an anonymous attacker sends it (page_size 50): the lines of
    the project's own Python it runs do not grow with the notes' length. The clock stands
    still: the page view's day is recomputed when a minute turns (traffic.visits)."""
    for _ in range(5):
        BlogFactory(title="a", content=_note("a", 4_968))  # at the note limit
        BlogFactory(title="b", content=_note("b", 19_968))  # four times as long
    index.rebuild()

    def search(char: str) -> Callable[[], Any]:
        query = {"q": QUERY.replace("a", char), "kind": "notes", "page_size": 50}

        def call() -> None:
            body = api.get("/api/search", query).json()
            assert body["count"] == 5
            content = body["results"][0]["highlight"]["content"]
            assert content[0] == {"text": char * 31, "hit": True}

        return call

    def ours(filename: str) -> bool:
        return filename.startswith(str(ROOT)) and not filename.startswith(str(VENV))

    costs = {}
    for char in "ab":
        search(char)()  # warm: the notes' cached documents, the patterns
        costs[char] = _lines_run(search(char), where=ours)

    assert costs["b"] == costs["a"]
