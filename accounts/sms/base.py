from __future__ import annotations


class BaseSmsBackend:
    """Delivers one text message. Raise on failure; the caller withdraws the code."""

    def send(self, phone: str, message: str) -> None:
        raise NotImplementedError
