from __future__ import annotations

import sys

from .base import BaseSmsBackend


class ConsoleBackend(BaseSmsBackend):
    """Development: print the message where the web server logs go, set apart from the
    request log lines around it so a login code is easy to spot."""

    def send(self, phone: str, message: str) -> None:
        sys.stdout.write(f"\n==> SMS to {phone}: {message}\n\n")
        sys.stdout.flush()
