"""The traffic's Redis keys: unique visitors and page views per day.

Every key is a row of docs/redis-keys.md (tests/toolkit/test_keys.py); the toolkit's
own keys and the conventions they share are in toolkit/redis/keys.py."""

from __future__ import annotations


def visits_uv(subject: str, day: str) -> str:
    """HyperLogLog of distinct visitors of `subject` ("site" or "shop:<id>") on a local day."""
    return f"uv:{subject}:{day}"


def visitor_ids(day: str, address: str) -> str:
    """Set of the anonymous visitor ids seen from one client address (a hash of it) on a
    local day: at most ANON_VISITORS_PER_ADDRESS of them count as visitors of their own."""
    return f"uv:anon-ids:{day}:{address}"


def visits_pv(subject: str, day: str) -> str:
    """Counter of page views of `subject` on a local day (YYYYMMDD in TIME_ZONE)."""
    return f"pv:{subject}:{day}"


def visits_ranking(kind: str, day: str) -> str:
    """Sorted set of the subjects of one kind ("shop") by page views on a local day
    (member: the id after "<kind>:"), for "most viewed" (shops/preheat.py)."""
    return f"pv:rank:{kind}:{day}"
