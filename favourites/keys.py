"""The favourites app's own Redis keys (the favourites sets themselves are the toolkit's:
toolkit/api/saved.py reads them for every app's cards, decision 457)."""

from __future__ import annotations


def favourites_first_pages(user_id: int) -> str:
    """Hash of a user's first page of "my favourites" per kind (field `<kind>`) and each
    kind's generation (field `g:<kind>`, rewritten by every sync of a favourite of that
    kind): favourites.pages. Shares the user's tag with the favourites sets."""
    return f"favpage:{{u{user_id}}}"
