"""Every error code the search app answers with (SPEC §11)."""

from __future__ import annotations

from enum import StrEnum


class Code(StrEnum):
    # 400 field errors on `q` (in `errors`, beside DRF's own `blank` and `max_length`):
    NO_WORDS = "no_words"  # nothing searchable: only punctuation or stop words
    UNKNOWN_KIND = "unknown_kind"  # `kind` names no searchable kind
