"""Globally unique, roughly time-ordered 63-bit ids without a central sequence table.

    id = (seconds since ID_EPOCH) << 32 | n

where n comes from a Redis counter per prefix per UTC day. Two ids with the
same seconds share a day and so a counter, which makes them distinct; ids of
different seconds differ in the high bits. That holds even if the counter is
lost (Redis restart without AOF): the restart takes longer than a second. 31
bits of seconds last until 2093; 2^32 ids per prefix per day is the ceiling.
"""

from __future__ import annotations

import functools
import time

from toolkit import clock

from . import keys
from .client import get_redis

ID_EPOCH = 1_735_689_600  # 2025-01-01T00:00:00Z
COUNTER_BITS = 32
_DAY = 24 * 60 * 60
COUNTER_TTL = 2 * _DAY  # a day's counter is needed only during that day


def day_of(epoch_seconds: int) -> str:
    """The UTC day (YYYYMMDD) that names the counter for a timestamp."""
    return _day_name(epoch_seconds // _DAY)


@functools.lru_cache(maxsize=4)
def _day_name(day: int) -> str:
    # Formatted once a day, not once per flash-sale request.
    return time.strftime("%Y%m%d", time.gmtime(day * _DAY))


def compose(epoch_seconds: int, counter: int) -> int:
    """Build an id from a Unix timestamp and a per-day counter value."""
    if not 0 < counter < (1 << COUNTER_BITS):
        raise OverflowError("id counter out of range for one day")
    return (epoch_seconds - ID_EPOCH) << COUNTER_BITS | counter


def parts(identifier: int) -> tuple[int, int]:
    """The two halves `compose` joined: seconds since ID_EPOCH, and the counter value."""
    return identifier >> COUNTER_BITS, identifier & ((1 << COUNTER_BITS) - 1)


def joined(since_epoch: int, counter: int) -> int:
    """Build the id back from its parts: the inverse of `parts`."""
    return since_epoch << COUNTER_BITS | counter


def timestamp_of(identifier: int) -> int:
    """The Unix timestamp (seconds) an id was made at."""
    return (identifier >> COUNTER_BITS) + ID_EPOCH


def next_id(prefix: str) -> int:
    """A new id for `prefix` (e.g. "order"): one pipelined Redis round trip."""
    # The day key and the seconds come from the same reading of the clock, so
    # they can never disagree around midnight.
    now = int(clock.now_seconds())
    key = keys.id_counter(prefix, day_of(now))
    pipe = get_redis().pipeline(transaction=False)
    pipe.incr(key)
    pipe.expire(key, COUNTER_TTL)
    counter, _ = pipe.execute()
    return compose(now, int(counter))
