"""Checks the test settings put around every request of the suite (and of the servers it
starts on them), so a rule that holds for every answer is proved by every test."""

from __future__ import annotations

import re
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

# A \uXXXX escape of a character beyond ASCII: JSON that a curl user cannot read.
# (A backslash the text itself holds is sent as two: an even run before the u is no escape.)
_ESCAPED = re.compile(
    rb"(?<!\\)(?:\\\\)*\\u"
    rb"(?:00[89a-fA-F][0-9a-fA-F]|0[1-9a-fA-F][0-9a-fA-F]{2}|[1-9a-fA-F][0-9a-fA-F]{3})"
)


class UnescapedJsonGuard:
    """Fails any JSON answer that escapes a non-ASCII character or is not UTF-8: the API
    speaks Chinese first, and every answer (fast paths, errors, DRF) must read as text."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.streaming or not response.get("Content-Type", "").startswith(
            "application/json"
        ):
            return response
        body = response.content
        body.decode("utf-8")  # raises on anything else
        escaped = _ESCAPED.search(body)
        assert escaped is None, f"{request.method} {request.path}: escaped JSON {body[:200]!r}"
        return response
