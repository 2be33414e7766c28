"""URL converters. `id` matches only what fits a signed BIGINT, so an overflowing id is a 404."""

from __future__ import annotations

from django.urls import register_converter

from toolkit.validation import parse_id


class IdConverter:
    regex = "[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        return parse_id(value)  # its ValueError means "no match" to Django: a 404

    def to_url(self, value: int) -> str:
        return str(value)


def register() -> None:
    """Called once from the app config, before any URLconf is loaded."""
    register_converter(IdConverter, "id")
