"""URL converters. `id` matches only what fits a signed BIGINT, so an overflowing id is a 404."""

from __future__ import annotations

from django.urls import register_converter

from dianping.validation import MAX_DB_ID


class IdConverter:
    regex = "[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        number = int(value)
        if not 0 < number <= MAX_DB_ID:
            raise ValueError("id out of range")  # Django treats this as "no match"
        return number

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(IdConverter, "id")
