"""The notifications' Redis keys: unread counts, the live channel and the streams.

Every key is a row of docs/redis-keys.md (tests/toolkit/test_keys.py); the toolkit's
own keys and the conventions they share are in toolkit/redis/keys.py."""

from __future__ import annotations


def unread_count(user_id: int) -> str:
    """A user's count of unread notifications, cached from the rows (decision 303); its
    version counter is `cache_version` of this key, which shares its hash tag."""
    return f"notify:{{u{user_id}}}:unread"


def notify_channel(user_id: int) -> str:
    """The sharded pub/sub channel (SPUBLISH) that pokes a user's open notification
    streams after a change to their unread rows (decision 385); it shares the unread
    count's hash tag, so the eviction and the poke go to one node in order."""
    return f"notify:{{u{user_id}}}:live"


def stream_ticket(ticket: str) -> str:
    """The login token a stream ticket was issued for: spent by the stream that opens
    with it (GETDEL), or gone after its TTL (decision 387)."""
    return f"notify:ticket:{ticket}"


def open_streams() -> str:
    """Hash {stream process: its open notification streams}, as each process last
    reported them (notifications.metrics); `stream_processes_seen` shares its hash tag."""
    return "notify:{streams}:open"


def stream_processes_seen() -> str:
    """Sorted set {stream process: its last report, unix seconds}: a process not heard
    from lately is left out of the gauge and removed."""
    return "notify:{streams}:seen"
