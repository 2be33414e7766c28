from __future__ import annotations

import secrets
import time
from pathlib import Path

from django.conf import settings

from .base import BaseSmsBackend


class FileBackend(BaseSmsBackend):
    """Staging and demos: one file per message in SMS_FILE_PATH, newest sorts last."""

    def send(self, phone: str, message: str) -> None:
        folder = Path(settings.SMS_FILE_PATH)
        folder.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = folder / f"{stamp}-{phone}-{secrets.token_hex(3)}.txt"
        path.write_text(f"to: {phone}\n\n{message}\n", encoding="utf-8")
