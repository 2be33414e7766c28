"""The API's one request parser: JSON, refused with a 400 when it nests too deep.

Python's decoder gives up on very deep nesting with a RecursionError (a 500 by default),
and even nesting it accepts can make later code recurse that deep; no request body here
needs more than a few levels.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.utils.translation import gettext
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

MAX_DEPTH = 32


class BoundedJSONParser(JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(_too_deep()) from None
        if _depth_exceeds(data, MAX_DEPTH):
            raise ParseError(_too_deep())
        return data


def _too_deep() -> str:
    return gettext("JSON nested deeper than %(depth)s levels.") % {"depth": MAX_DEPTH}


def _depth_exceeds(data: Any, limit: int) -> bool:
    """Whether lists and objects nest more than `limit` deep (iteratively: no recursion
    for an attacker to exhaust)."""
    stack = [(data, 1)]
    while stack:
        node, depth = stack.pop()
        children: Iterable[Any]
        if isinstance(node, dict):
            children = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False
