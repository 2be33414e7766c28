from __future__ import annotations

import sys

from .base import BaseSmsBackend


class ConsoleBackend(BaseSmsBackend):
    """Development: print the message where the web server logs go."""

    def send(self, phone: str, message: str) -> None:
        sys.stdout.write(f"[sms] to {phone}: {message}\n")
        sys.stdout.flush()
