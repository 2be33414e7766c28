"""Who is looking, for traffic statistics, without cookies: a signed-in user, else the
client's own id, else its address and User-Agent. Anonymous ones carry their address, by
which traffic.visits bounds how many of them count (ANON_VISITORS_PER_ADDRESS)."""

from __future__ import annotations

import hashlib
import re
from typing import Any

from toolkit.api.clients import client_ip

from . import visits
from .visits import Visitor

_CLIENT_ID = re.compile(r"[A-Za-z0-9_-]{8,64}")


def visitor_of(request: Any, user_id: int | None) -> Visitor:
    """`user:<id>` when logged in; else the client's own `X-Client-Id` (a random id the
    app keeps in local storage); else a hash of address and User-Agent."""
    if user_id is not None:
        return Visitor(f"user:{user_id}")
    address = client_ip(request)
    hashed = _hash(address)
    client_id = request.headers.get("X-Client-Id", "")
    if _CLIENT_ID.fullmatch(client_id):
        return Visitor(f"client:{client_id}", hashed)
    return Visitor("anon:" + _hash(f"{address}|{request.headers.get('User-Agent', '')}"), hashed)


def _hash(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def count_page(request: Any, kind: str, user_id: int | None, shop_id: int | None = None) -> None:
    """Count a view of a page of `kind` (traffic.visits.PAGE_KINDS) by the caller: a list
    append, written by the visits flusher. A shop's page counts for the shop too. Apps
    below this one in the layers call it through toolkit.api.pageviews."""
    subject = visits.shop_subject(shop_id) if shop_id is not None else None
    visits.record(subject, visitor_of(request, user_id), page=kind)
