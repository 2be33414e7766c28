"""Small input parsers shared by views: reject early, never let bad input reach the DB."""

from __future__ import annotations

import re
from datetime import date

from django.utils.translation import gettext

MAX_DB_ID = 2**63 - 1  # signed BIGINT: larger values overflow SQLite and MariaDB


def parse_id(raw: str) -> int:
    """A database id from text: digits only, 1..2^63-1. Raises ValueError otherwise."""
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 19:
        raise ValueError("not an id")
    number = int(raw)
    if not 0 < number <= MAX_DB_ID:
        raise ValueError("id out of range")
    return number


def parse_positive_int(raw: str | None, *, default: int) -> int:
    """A positive integer from a query string; `default` when absent.

    Raises ValueError with a message fit for the client (in the request's language).
    """
    number = parse_whole_number(raw, default=default)
    if number < 1:
        raise ValueError(gettext("A positive whole number is required."))
    return number


def parse_whole_number(raw: str | None, *, default: int | None) -> int | None:
    """0 or more, from a query string (ASCII digits, at most 18); `default` when absent."""
    if raw is None or raw == "":
        return default
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 18:
        raise ValueError(gettext("A whole number (0 or more) is required."))
    return int(raw)


_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)
_ISO_MONTH = re.compile(r"(\d{4})-(\d{2})", re.ASCII)


def parse_iso_date(raw: str) -> date:
    """YYYY-MM-DD, and only that (`date.fromisoformat` also takes week dates)."""
    if not _ISO_DATE.fullmatch(raw):
        raise ValueError(gettext("Use YYYY-MM-DD."))
    try:
        return date.fromisoformat(raw)
    except ValueError:
        raise ValueError(gettext("Use YYYY-MM-DD.")) from None


def parse_month(raw: str) -> date:
    """YYYY-MM, as the first day of that month."""
    match = _ISO_MONTH.fullmatch(raw)
    try:
        if not match:
            raise ValueError
        return date(int(match[1]), int(match[2]), 1)
    except ValueError:
        raise ValueError(gettext("Use YYYY-MM, e.g. 2026-11.")) from None


def choose_one_of(choices: tuple[str, ...] | list[str]) -> str:
    """The message for a value outside `choices`, in the request's language."""
    return gettext("Choose one of: %(choices)s.") % {"choices": ", ".join(choices)}
