"""A stable visitor id for traffic statistics, without cookies or accounts."""

from __future__ import annotations

import hashlib
import re
from typing import Any

from .clients import client_ip

_CLIENT_ID = re.compile(r"[A-Za-z0-9_-]{8,64}")


def visitor_id(request: Any, user_id: int | None) -> str:
    """`user:<id>` when logged in; else the client's own `X-Client-Id` (a random id the
    app keeps in local storage); else a hash of IP and User-Agent as a last resort."""
    if user_id is not None:
        return f"user:{user_id}"
    client_id = request.headers.get("X-Client-Id", "")
    if _CLIENT_ID.fullmatch(client_id):
        return f"client:{client_id}"
    fingerprint = f"{client_ip(request)}|{request.headers.get('User-Agent', '')}"
    return "anon:" + hashlib.blake2b(fingerprint.encode(), digest_size=8).hexdigest()
