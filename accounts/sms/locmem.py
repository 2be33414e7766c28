from __future__ import annotations

import threading

from .base import BaseSmsBackend

# (phone, message) pairs, like django.core.mail.outbox; tests clear it.
outbox: list[tuple[str, str]] = []
_lock = threading.Lock()


class LocmemBackend(BaseSmsBackend):
    """Tests: keep messages in this process."""

    def send(self, phone: str, message: str) -> None:
        with _lock:
            outbox.append((phone, message))
