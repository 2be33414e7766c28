"""Every error code the accounts app answers with, in one place (docs/product/accounts.md)."""

from __future__ import annotations

from enum import StrEnum


class Code(StrEnum):
    INVALID_CODE = "invalid_code"  # 400: wrong, expired or burnt login code
    ACCOUNT_DISABLED = "account_disabled"  # 403
    ACCOUNT_CONFLICT = "account_conflict"  # 409: the phone belongs to a staff-only account
    USER_NOT_FOUND = "user_not_found"  # 404
