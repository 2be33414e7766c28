"""Pluggable SMS backends, chosen like Django email backends by settings.SMS_BACKEND.

"console", "file" and "locmem" name the built-in backends; anything else is a
dotted path to a class with `send(phone, message)`. A real provider's backend
should hand the message to a Celery task rather than block the request.
"""

from __future__ import annotations

from functools import cache

from django.conf import settings
from django.utils.module_loading import import_string

from .base import BaseSmsBackend

_BUILTIN = {
    "console": "accounts.sms.console.ConsoleBackend",
    "file": "accounts.sms.file.FileBackend",
    "locmem": "accounts.sms.locmem.LocmemBackend",
}


@cache
def _backend_class(path: str) -> type[BaseSmsBackend]:
    return import_string(_BUILTIN.get(path, path))


def send_sms(phone: str, message: str) -> None:
    """Deliver one text message through the configured backend."""
    _backend_class(settings.SMS_BACKEND)().send(phone, message)
