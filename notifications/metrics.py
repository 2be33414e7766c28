"""The inboxes' metrics (dianping/metrics.py has the mechanics; docs/operations.md lists
them): notifications counted by kind where they are written, in the Celery process that
writes them."""

from __future__ import annotations

from functools import cache
from typing import Any

from prometheus_client import Counter

NOTIFICATIONS_SENT = Counter(
    "dianping_notifications_sent",
    "Notifications added to inboxes, by kind (an event told before adds none; a comment "
    "folded into an unread item counts as one).",
    ["kind"],
)


@cache
def sent(kind: str) -> Any:
    """The counter child of one kind (the kinds are fixed in code): looked up once per
    process."""
    return NOTIFICATIONS_SENT.labels(kind)
