"""Times in answers built without DRF's serializers (toolkit.api.fastpath), written as
DRF's DateTimeField writes them: ISO 8601 in the current time zone, "Z" for UTC, with the
microseconds. The field looks the zone up for every value, a sixth of a 20-item inbox
page's CPU; a page's writer looks it up once."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from django.utils import timezone


def time_writer() -> Callable[[datetime | None], str | None]:
    """A function that writes times as DRF does, in the zone current now (USE_TZ)."""
    zone = timezone.get_current_timezone()

    def write(value: datetime | None) -> str | None:
        if not value:
            return None
        if timezone.is_naive(value):
            value = timezone.make_aware(value, zone)
        text = value.astimezone(zone).isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text

    return write
