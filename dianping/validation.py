"""Small input parsers shared by views: reject early, never let bad input reach the DB."""

from __future__ import annotations

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

    Raises ValueError with a message fit for the client.
    """
    if raw is None or raw == "":
        return default
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 18 or int(raw) < 1:
        raise ValueError("A positive whole number is required.")
    return int(raw)
