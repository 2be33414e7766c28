"""Which bucket a user's sign-in keys live in.

Sign-in keys carry their bucket as a hash tag (signin.keys `sign_month`,
`sign_daily_counts`): the sign script sets a user's bit and counts the day in that
bucket's counters in one step, whose keys then share a Cluster slot; the report sums the
buckets. Changing BUCKETS moves every sign-in key (see this app's data migration).
"""

from __future__ import annotations

BUCKETS = 64


def bucket_of(user_id: int) -> int:
    return user_id % BUCKETS
