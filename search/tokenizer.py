"""Chinese-aware terms for the search index and for queries: rjieba (jieba-rs) segments
the text in search mode, which adds the shorter words inside long ones (人民广场 gives
人民, 广场 and 人民广场), so a query for a part finds the whole."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

import rjieba

TERM_MAX = 32  # characters: the index column's width; longer tokens are not indexed
# Words too common to tell documents apart: a query keeps its other words.
STOP_WORDS = frozenset(
    "的了和是在也很就都又与及或着吗呢吧啊个这那有我你他她它"
)  # one character each
# A term has a letter or a digit (CJK ideographs are letters): punctuation is no term.
_WORDLIKE = re.compile(r"\w", re.UNICODE)


def normalize(text: str) -> str:
    """The index's and the queries' spelling: compatibility forms folded (full-width
    letters and digits to ASCII), case folded, accents dropped (café to cafe: MariaDB's
    collations compare them equal, so the index must not hold both)."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    if decomposed.isascii():  # no accents left to drop, nothing to compose: done, in C
        return decomposed
    bare = "".join(char for char in decomposed if not unicodedata.combining(char))
    return unicodedata.normalize("NFKC", bare)


def terms(text: str) -> Counter[str]:
    """The text's terms with how often each occurs (stop words and punctuation left out)."""
    return Counter(
        token
        for token in (t.strip() for t in rjieba.cut_for_search(normalize(text)))
        if token and len(token) <= TERM_MAX and token not in STOP_WORDS and _WORDLIKE.search(token)
    )


def query_terms(query: str) -> list[str]:
    """A query's distinct terms, in the order they appear."""
    return list(terms(query))


def warm_up() -> None:
    """Load the dictionary now (about 0.1 s) rather than in a user's first search."""
    rjieba.cut("预热")
