"""Small input parsers shared by views: reject early, never let bad input reach the DB."""

from __future__ import annotations

import re
from datetime import date
from typing import overload

from django.utils.translation import gettext

MAX_DB_ID = 2**63 - 1  # signed BIGINT: larger values overflow SQLite and MariaDB


def decimal_at_most(limit: int) -> str:
    """A pattern for the decimal numbers 1..`limit` without leading zeros, exactly: for ids
    sent as strings (order ids exceed 2^53), so that the schema admits no number we refuse.
    Each branch fixes a prefix of `limit` and takes a smaller next digit."""
    digits = str(limit)
    shorter = f"[1-9][0-9]{{0,{len(digits) - 2}}}" if len(digits) > 1 else None
    branches = [shorter] if shorter else []
    for i, digit in enumerate(digits):
        prefix, rest = digits[:i], len(digits) - i - 1
        low = "1" if i == 0 else "0"
        if int(digit) > int(low):
            tail = f"[0-9]{{{rest}}}" if rest else ""
            branches.append(f"{prefix}[{low}-{int(digit) - 1}]{tail}")
    branches.append(digits)
    return f"^(?:{'|'.join(branches)})$"


ID_TEXT_PATTERN = decimal_at_most(2**63 - 1)


def parse_id(raw: str) -> int:
    """A database id from text: digits only, 1..2^63-1. Raises ValueError otherwise."""
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 19:
        raise ValueError("not an id")
    number = int(raw)
    if not 0 < number <= MAX_DB_ID:
        raise ValueError("id out of range")
    return number


def parse_positive_int(raw: str | None, *, default: int) -> int:
    """A positive integer from a query string (1 to 2^63 - 1); `default` when absent.

    Raises ValueError with a message fit for the client (in the request's language).
    """
    number = parse_whole_number(raw, default=default)
    if number < 1:
        raise ValueError(gettext("A positive whole number is required."))
    return number


@overload
def parse_whole_number(raw: str | None, *, default: int) -> int: ...
@overload
def parse_whole_number(raw: str | None, *, default: None) -> int | None: ...
def parse_whole_number(raw: str | None, *, default: int | None) -> int | None:
    """0 to 2^63 - 1, in ASCII digits, from a query string; `default` when absent. Present
    but empty (`?page=`) is not absent: it is refused like any other non-number."""
    if raw is None:
        return default
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 19 or int(raw) > MAX_DB_ID:
        raise ValueError(gettext("A whole number (0 or more) is required."))
    return int(raw)


# Calendar days and months from 2000 to 2099, spelled out so that the pattern admits only
# real dates (2026-02-30 does not match; 2028-02-29 does): the OpenAPI schema shows these
# patterns, and a schema-valid date must never be refused.
_DAY = (
    "(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])"
    "|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)"
    "|02-(?:0[1-9]|1[0-9]|2[0-8])"
)
DATE_PATTERN = f"^(?:20[0-9]{{2}}-(?:{_DAY})|20(?:[02468][048]|[13579][26])-02-29)$"
MONTH_PATTERN = "^20[0-9]{2}-(?:0[1-9]|1[0-2])$"
# Days from 1900-01-01 to 2099-12-31 (1900 was no leap year; 2000 was): birthdays. That a
# day is not in the future the schema cannot say; the field refuses it apart.
PAST_DATE_PATTERN = (
    f"^(?:(?:19|20)[0-9]{{2}}-(?:{_DAY})"
    "|(?:19|20)(?:0[48]|[2468][048]|[13579][26])-02-29|2000-02-29)$"
)
_ISO_DATE = re.compile(DATE_PATTERN, re.ASCII)
_ISO_MONTH = re.compile(MONTH_PATTERN, re.ASCII)


def parse_iso_date(raw: str) -> date:
    """YYYY-MM-DD from 2000-01-01 to 2099-12-31, and only that: a day far off is a typo,
    and the day after 9999-12-31 does not exist (an OverflowError, once a 500)."""
    if not _ISO_DATE.fullmatch(raw):
        raise ValueError(gettext("Use YYYY-MM-DD, a day from 2000 to 2099."))
    return date.fromisoformat(raw)


def parse_month(raw: str) -> date:
    """YYYY-MM from 2000-01 to 2099-12, as the first day of that month."""
    if not _ISO_MONTH.fullmatch(raw):
        raise ValueError(gettext("Use YYYY-MM, a month from 2000 to 2099, e.g. 2026-11."))
    return date(int(raw[:4]), int(raw[5:7]), 1)


def choose_one_of(choices: tuple[str, ...] | list[str]) -> str:
    """The message for a value outside `choices`, in the request's language."""
    return gettext("Choose one of: %(choices)s.") % {"choices": ", ".join(choices)}
