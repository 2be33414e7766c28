"""Scroll pagination by id (seed 004's "my vouchers"; shop orders, followers,
notifications): newest first, the next page asked for with the last id seen. Rows added
or removed meanwhile never shift a page, so nothing is skipped or repeated; `last_id`
travels as a string (order ids exceed 2^53) and is null at the end."""

from __future__ import annotations

from functools import cache
from typing import Any

from rest_framework import serializers

from . import fields

SCROLL_PAGE = 10


class ScrollQuerySerializer(serializers.Serializer):
    last_id = fields.IdTextField(required=False, help_text="The previous page's `last_id`.")


def scroll_page(items: list[Any], next_last_id: int | None) -> dict[str, Any]:
    """The scroll page body: `results`, and `last_id` to pass back (None at the end)."""
    return {"results": items, "last_id": None if next_last_id is None else str(next_last_id)}


@cache
def scrolled(item: type[serializers.Serializer]) -> type[serializers.Serializer]:
    """The scroll page of `item`s as `scroll_page` sends it (for the schema)."""
    return type(
        f"{item.__name__.removesuffix('Serializer')}ScrollSerializer",
        (serializers.Serializer,),
        {
            "results": item(many=True),
            "last_id": serializers.CharField(
                allow_null=True, help_text="Pass back to get the next page; null at the end."
            ),
            "__module__": item.__module__,
        },
    )
