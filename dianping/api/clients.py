"""Who is calling: the client's IP address, trusting only the proxies we run.

`X-Forwarded-For` is whatever the client sent, plus one address per proxy it passed.
Only the last NUM_PROXIES entries were written by our own proxies; anything before them
is the client's to invent. With NUM_PROXIES = 0 (the default everywhere: no proxy in
front) the header is ignored and the socket's address is the client's.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings


def client_ip(request: Any) -> str:
    """The caller's IP address for rate limits and visitor counts."""
    meta = request.META
    remote = meta.get("REMOTE_ADDR", "")
    proxies = settings.REST_FRAMEWORK.get("NUM_PROXIES") or 0
    forwarded = meta.get("HTTP_X_FORWARDED_FOR", "")
    if proxies <= 0 or not forwarded:
        return remote
    hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
    # The address our outermost proxy saw: NUM_PROXIES entries from the right (the last
    # is what the innermost proxy appended). Fewer entries than proxies: the first.
    return hops[-min(proxies, len(hops))] if hops else remote
