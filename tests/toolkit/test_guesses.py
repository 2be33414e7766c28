"""The guesses a process keeps (toolkit.guesses): bounded, least recently stored out."""

from __future__ import annotations

from toolkit.guesses import Guesses


def test_the_least_recently_stored_guess_makes_room() -> None:
    guesses: Guesses[int] = Guesses(2)
    guesses.remember("a", 1)
    guesses.remember("b", 2)
    guesses.remember("a", 3)  # stored again: now the newest
    guesses.remember("c", 4)

    assert (guesses.get("a"), guesses.get("b"), guesses.get("c")) == (3, None, 4)
    guesses.forget("a")
    assert guesses.get("a") is None
