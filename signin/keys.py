"""The sign-in's Redis keys: each user's month of sign-ins and the daily totals.

Every key is a row of docs/redis-keys.md (tests/toolkit/test_keys.py); the toolkit's
own keys and the conventions they share are in toolkit/redis/keys.py."""

from __future__ import annotations

# Sign-in keys carry their user's bucket as hash tag {g<bucket>} (signin.buckets says
# which), so the sign script's keys share a Cluster slot.


def sign_month(bucket: int, user_id: int, month: str) -> str:
    """Bitmap of a user's sign-ins in one month (`month` is YYYYMM, local time): bit
    offset d - 1 is day d. `bucket` is the user's (signin.buckets.bucket_of)."""
    return f"sign:{{g{bucket}}}:{user_id}:{month}"


def sign_month_pattern() -> str:
    """SCAN pattern of every user's month bitmaps (`recount_signins` only)."""
    return "sign:{g*}:*:" + "[0-9]" * 6


def sign_total(bucket: int, user_id: int) -> str:
    """Counter of every day a user ever signed: incremented by the sign script when it
    sets a new bit, recounted from the month bitmaps by `manage.py recount_signins`."""
    return f"sign:{{g{bucket}}}:{user_id}:total"


def sign_daily_counts(bucket: int) -> str:
    """Hash YYYYMMDD -> how many users of one bucket signed that day, counted as sign-ins
    happen (the day's total is the sum over the buckets)."""
    return f"sign:{{g{bucket}}}:daily-counts"
