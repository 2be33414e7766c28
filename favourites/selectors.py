"""My favourites: a kind's rows newest first, scrolled by id (toolkit.api.scroll), each
shown as the card its own lists show (from their caches, with their live state)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import orjson

from blogs import likes
from blogs.selectors import blog_documents
from shops.selectors import shop_documents, shop_raws, with_open_now, with_saved
from toolkit import clock
from toolkit.api import saved
from toolkit.api.scroll import SCROLL_PAGE
from toolkit.api.times import time_writer
from vouchers import selectors as vouchers
from vouchers.sale import stock

from .models import Favourite

Row = tuple[int, int, datetime]  # (favourite id, target id, saved at)


def favourite_rows(*, user_id: int, kind: str, last_id: int | None) -> tuple[list[Row], int | None]:
    """10 of the user's favourites of `kind`, newest first (the `(user, kind, -id)`
    index), and the next page's `last_id` (None at the end). Scrolled by the row's id:
    saves and unsaves meanwhile never shift a page; saving again puts it back on top."""
    rows = Favourite.objects.filter(user_id=user_id, kind=kind)
    if last_id is not None:
        rows = rows.filter(id__lt=last_id)
    page = list(rows.order_by("-id").values_list("id", "object_id", "created_at")[:SCROLL_PAGE])
    return page, (page[-1][0] if len(page) == SCROLL_PAGE else None)


def favourite_cards(*, kind: str, rows: list[Row], viewer_id: int) -> list[dict[str, Any]]:
    """The rows as the list shows them: `kind`, `saved_at` and the target's card under
    its kind's name (the other two null). A target gone from its readers' view (a hidden
    note) is left out: the page may be short, and `last_id` still goes on."""
    ids = [object_id for _, object_id, _ in rows]
    cards = _cards(kind, ids, viewer_id)
    time = time_writer()
    empty = dict.fromkeys((saved.SHOP, saved.BLOG, saved.VOUCHER))
    return [
        {"kind": kind, "saved_at": time(at), **empty, kind: cards[object_id]}
        for _, object_id, at in rows
        if object_id in cards
    ]


def favourite_shops_json(rows: list[Row], next_last_id: int | None) -> bytes:
    """The scroll page of shop favourites as `favourite_cards` and `scroll_page` would
    write it, spliced from the shops' cached JSON without decoding it (decision 425):
    each card with `open_now` at one now and `saved` true (they are the reader's own)."""
    raws = shop_raws([object_id for _, object_id, _ in rows])
    time, at = time_writer(), clock.now()
    items = [
        b'{"kind":"shop","saved_at":%b,"shop":%b,"blog":null,"voucher":null}'
        % (orjson.dumps(time(saved_at)), with_saved(with_open_now(raw, at), True))
        for _, object_id, saved_at in rows
        if (raw := raws.get(object_id)) is not None
    ]
    last_id = b"null" if next_last_id is None else b'"%d"' % next_last_id
    return b'{"results":[%b],"last_id":%b}' % (b",".join(items), last_id)


def _cards(kind: str, ids: list[int], viewer_id: int) -> dict[int, dict[str, Any]]:
    mine = dict.fromkeys(ids, True)  # they are the reader's favourites: no need to ask
    if kind == saved.SHOP:
        found = shop_documents(ids)
        saved.mark(found.values(), mine)
        return found
    if kind == saved.BLOG:
        notes = blog_documents(ids)
        likes.overlay(notes, viewer_id, known_saved=mine)
        return {note["id"]: note for note in notes}
    listed = list(vouchers.voucher_documents(ids).values())
    sales = vouchers.seckill_ids(listed)
    documents = vouchers.vouchers_now(listed, stock.live_stock_or_stored(sales, listed))
    saved.mark(documents, mine)
    return {doc["id"]: doc for doc in documents}
