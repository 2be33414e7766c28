"""Every error code the follows app answers with, in one place (docs/product/follows.md)."""

from __future__ import annotations

from enum import StrEnum


class Code(StrEnum):
    CANNOT_FOLLOW_SELF = "cannot_follow_self"  # 409
