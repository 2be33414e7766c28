"""Every error code the follows app answers with, in one place (SPEC §6)."""

from __future__ import annotations

from enum import StrEnum


class Code(StrEnum):
    CANNOT_FOLLOW_SELF = "cannot_follow_self"  # 409
