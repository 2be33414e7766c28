"""Scroll pagination by id (seed 004's "my vouchers"): a page newest first and the
`last_id` to pass back for the next one, as a string (order ids exceed 2^53), null at
the end."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from . import fields


def scroll_page(items: list[Any], next_last_id: int | None) -> dict[str, Any]:
    return {"results": items, "last_id": None if next_last_id is None else str(next_last_id)}


class ScrollQuerySerializer(serializers.Serializer):
    last_id = fields.IdTextField(required=False, help_text="The previous page's `last_id`.")
