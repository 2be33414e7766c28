"""Who is calling: the client's address, trusting only the proxies we run, as the key that
every per-address limit and the anonymous visitor cap count under.

`X-Forwarded-For` is whatever the client sent, plus one address per proxy it passed.
Only the last NUM_PROXIES entries were written by our own proxies; anything before them
is the client's to invent. With NUM_PROXIES = 0 (the default everywhere: no proxy in
front) the header is ignored and the socket's address is the client's.

An IPv6 client counts by its network of CLIENT_IPV6_PREFIX bits (a /64 by default): every
host is given a /64 and picks any address in it at will, so counting single addresses
would let one host take 2^64 budgets (decision 281). An IPv4 address counts alone, and
an IPv4-mapped IPv6 address (`::ffff:1.2.3.4`, a dual-stack socket's view of an IPv4
client) counts as its IPv4 address.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from typing import Any

from django.conf import settings


def client_address(request: Any) -> str:
    """The caller's own address as our outermost proxy saw it (for logs)."""
    meta = request.META
    remote: str = meta.get("REMOTE_ADDR", "")
    proxies = settings.REST_FRAMEWORK.get("NUM_PROXIES") or 0
    forwarded = meta.get("HTTP_X_FORWARDED_FOR", "")
    if proxies <= 0 or not forwarded:
        return remote
    hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
    # The address our outermost proxy saw: NUM_PROXIES entries from the right (the last
    # is what the innermost proxy appended). Fewer entries than proxies: the first.
    return hops[-min(proxies, len(hops))] if hops else remote


def client_ip(request: Any) -> str:
    """The key the caller's rate limits and visitor counts go by: its IPv4 address, or
    its IPv6 network of CLIENT_IPV6_PREFIX bits (`2001:db8:1:2::/64`)."""
    return address_key(client_address(request), settings.CLIENT_IPV6_PREFIX)


@lru_cache(maxsize=4096)
def address_key(address: str, ipv6_prefix: int) -> str:
    """`address` as the bucket it counts in. Text that is no address (a proxy that writes
    something else) stays as it is: still one bucket per distinct value, as before."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])  # a zone (`fe80::1%eth0`) aside
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if isinstance(ip, ipaddress.IPv4Address):
        return str(ip)
    if ipv6_prefix >= 128:
        return str(ip)
    return str(ipaddress.ip_network(f"{ip}/{ipv6_prefix}", strict=False))
