"""A Bloom filter on a plain Redis bitmap (no RedisBloom module needed).

"No" is certain, "maybe" is wrong with probability 0.1 % at `capacity` items.
Bits are read and written with one BITFIELD command each way. The last bit of
the bitmap is a sentinel set when the filter is built: a filter that was never
built (or was lost with Redis) answers "maybe" for everything, so losing it
degrades to no filtering instead of rejecting all.

Generations (decision 490): a rebuild, possibly at a larger capacity, builds a new
bitmap under a new key while writes land in both, then switches a pointer (a hash
sharing the filter's hash tag) and drops the old bitmap in one MULTI. A process reads
the pointer at most every `refresh` seconds; until then it checks the dropped bitmap,
whose missing sentinel answers "maybe": a stale reader filters nothing for a moment,
and no reader ever gets a false "no". `stats` estimates the fill from the set bits.
"""

from __future__ import annotations

import hashlib
import math
import time
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from typing import cast

import redis

from toolkit import runtime

from . import keys
from .client import get_redis
from .lock import RedisLock
from .outage import OUTAGE_ERRORS

_ERROR_RATE = 0.001
_REBUILD_LOCK_TTL = 30 * 60  # seconds: far longer than a fill of millions of ids


@dataclass(frozen=True, slots=True)
class Layout:
    """One generation's bitmap: its key and the sizes its capacity gives."""

    generation: int
    capacity: int
    key: str
    bits: int
    hashes: int

    @classmethod
    def of(cls, base: str, generation: int, capacity: int) -> Layout:
        if capacity < 1:
            raise ValueError("capacity must be >= 1")
        bits = math.ceil(-capacity * math.log(_ERROR_RATE) / math.log(2) ** 2)
        hashes = max(1, round(bits / capacity * math.log(2)))
        key = keys.bloom_generation(base, generation)
        return cls(generation, capacity, key, bits, hashes)

    @property
    def sentinel(self) -> int:
        return self.bits  # one bit past the filter's own bits

    def field(self) -> str:
        return f"{self.generation}:{self.capacity}"

    def offsets(self, item: str) -> list[int]:
        # Kirsch-Mitzenmacher: k hashes from two halves of one digest.
        digest = hashlib.blake2b(item.encode(), digest_size=16).digest()
        h1 = int.from_bytes(digest[:8], "little")
        h2 = int.from_bytes(digest[8:], "little") | 1
        return [(h1 + i * h2) % self.bits for i in range(self.hashes)]

    def set_args(self, items: Iterable[str]) -> list[str | int]:
        args: list[str | int] = []
        for item in items:
            for offset in self.offsets(item):
                args += ["SET", "u1", offset, 1]
        return args


@dataclass(frozen=True, slots=True)
class BloomStats:
    """What `/metrics` exports of a filter (estimates from its set bits)."""

    capacity: int
    bits: int
    set_bits: int
    estimated_items: float
    fill: float  # estimated items / capacity
    false_positive_rate: float  # (set bits / bits) ** hashes


_instances: weakref.WeakSet[BloomFilter] = weakref.WeakSet()


class BloomFilter:
    def __init__(self, key: str, *, capacity: int, refresh: float = 10.0) -> None:
        self.key = key  # the base key: generation 0's bitmap, the others' prefix
        self.capacity = capacity  # generation 0's, until a rebuild picks another
        self.refresh = refresh
        self._initial = Layout.of(key, 0, capacity)
        self._current = self._initial
        self._read_at = -math.inf
        _instances.add(self)

    # --- the generation readers check --------------------------------------------------

    def current(self) -> Layout:
        """The generation to check, as the pointer said at most `refresh` seconds ago. While
        Redis cannot be reached the last one read stands (the check that follows fails the
        same way, and the cache answers from the database), asked again `refresh` later."""
        now = time.monotonic()
        if now - self._read_at > self.refresh:
            self._read_at = now
            try:
                field = cast("bytes | None", get_redis().hget(self._meta, "current"))
            except OUTAGE_ERRORS:
                return self._current
            self._current = self._parse(field) or self._initial
        return self._current

    @property
    def _meta(self) -> str:
        return keys.bloom_pointer(self.key)

    def _parse(self, field: bytes | None) -> Layout | None:
        if not field:
            return None
        generation, capacity = (int(part) for part in field.split(b":"))
        if generation == self._initial.generation and capacity == self._initial.capacity:
            return self._initial
        return Layout.of(self.key, generation, capacity)

    def forget(self) -> None:
        """Read the pointer again at the next check (tests flush Redis between cases)."""
        self._read_at = -math.inf
        self._current = self._initial

    # --- reads ----------------------------------------------------------------------

    def might_contain(self, item: str) -> bool:
        """False only if `item` was certainly never added (and the filter is built)."""
        pipe = get_redis().pipeline(transaction=False)
        self.queue_check(pipe, item)
        return self.verdict(pipe.execute()[0])

    def queue_check(self, pipe: redis.client.Pipeline, item: str) -> None:
        """Queue the check on a caller's pipeline, to share its round trip; see `verdict`."""
        layout = self.current()
        args: list[str | int] = ["GET", "u1", layout.sentinel]
        for offset in layout.offsets(item):
            args += ["GET", "u1", offset]
        pipe.execute_command("BITFIELD_RO", layout.key, *args)

    @staticmethod
    def verdict(bits: list[int]) -> bool:
        built, *item_bits = bits
        return not built or all(item_bits)

    # --- writes ---------------------------------------------------------------------

    def live(self) -> list[Layout]:
        """The generations a write must reach, read now: the current one and, during a
        rebuild, the one being built."""
        fields = cast("list[bytes | None]", get_redis().hmget(self._meta, "current", "building"))
        current = self._parse(fields[0]) or self._initial
        building = self._parse(fields[1])
        return [current] if building is None else [current, building]

    def add(self, items: Iterable[str]) -> None:
        pipe = get_redis().pipeline(transaction=False)
        self.queue_add(pipe, items)
        if len(pipe):
            pipe.execute()

    def queue_add(self, pipe: redis.client.Pipeline, items: Iterable[str]) -> None:
        """Queue `add` on a caller's pipeline, to share its round trip (reading which
        generations are live first, so a write during a rebuild lands in both)."""
        items = list(items)
        if not items:
            return
        for layout in self.live():
            pipe.execute_command("BITFIELD", layout.key, *layout.set_args(items))

    # --- rebuilds -------------------------------------------------------------------

    def rebuild(
        self, items: Iterable[str], *, capacity: int | None = None, batch: int = 10_000
    ) -> int:
        """Build a fresh filter from all items (at `capacity`, or the current one) and
        switch to it; returns the count. Writes made meanwhile land in both bitmaps, so
        an item the caller's source missed because it was added during the scan is kept
        as long as it was written after `begin_rebuild` (see `shop_bloom_rebuild`)."""
        with RedisLock(keys.rebuilding(self.key), ttl=_REBUILD_LOCK_TTL, wait=_REBUILD_LOCK_TTL):
            layout = self.begin_rebuild(capacity)
            count = self.fill(layout, items, batch=batch)
            self.switch(layout)
        return count

    def begin_rebuild(self, capacity: int | None = None) -> Layout:
        """Name the next generation in the pointer as "building", so every write from now
        on lands in it too; its bitmap starts empty, without the sentinel."""
        current = self.live()[0]
        layout = Layout.of(self.key, current.generation + 1, capacity or current.capacity)
        client = get_redis()
        client.delete(layout.key)
        client.hset(self._meta, "building", layout.field())
        return layout

    def fill(self, layout: Layout, items: Iterable[str], *, batch: int = 10_000) -> int:
        """Add `items` to the generation being built, `batch` per command."""
        chunk: list[str] = []
        count = 0
        client = get_redis()
        for item in items:
            count += 1
            chunk.append(item)
            if len(chunk) >= batch:
                client.execute_command("BITFIELD", layout.key, *layout.set_args(chunk))
                chunk = []
        if chunk:
            client.execute_command("BITFIELD", layout.key, *layout.set_args(chunk))
        return count

    def switch(self, layout: Layout) -> None:
        """Mark the built generation built and make it current, dropping the old bitmap,
        in one MULTI (every key shares the filter's hash tag: one slot)."""
        old = self.live()[0]
        client = get_redis()
        client.execute_command("BITFIELD", layout.key, "SET", "u1", layout.sentinel, 1)
        pipe = client.pipeline(transaction=True)
        pipe.hset(self._meta, "current", layout.field())
        pipe.hdel(self._meta, "building")
        if old.key != layout.key:
            pipe.delete(old.key)
        pipe.execute()
        self._current, self._read_at = layout, time.monotonic()

    def drop_strays(self) -> int:
        """Delete older generations' bitmaps a writer that read the pointer before a
        switch may have recreated after it (no reader uses them); returns how many."""
        current = self.live()[0]
        old = [keys.bloom_generation(self.key, g) for g in range(current.generation)]
        return int(get_redis().delete(*old)) if old else 0

    # --- watching -------------------------------------------------------------------

    def stats(self) -> BloomStats:
        """The current generation's fill and false-positive rate, estimated from its set
        bits (one BITCOUNT: for a scrape or a periodic task, not a request)."""
        layout = self.live()[0]
        client = get_redis()
        pipe = client.pipeline(transaction=False)
        pipe.bitcount(layout.key)
        pipe.getbit(layout.key, layout.sentinel)
        counted, sentinel = pipe.execute()
        ones = min(layout.bits, int(counted) - int(sentinel))
        if ones >= layout.bits:
            estimated = math.inf
        else:  # Swamidass & Baldi: n = -(m / k) ln(1 - X / m)
            estimated = -layout.bits / layout.hashes * math.log(1 - ones / layout.bits)
        return BloomStats(
            capacity=layout.capacity,
            bits=layout.bits,
            set_bits=ones,
            estimated_items=estimated,
            fill=estimated / layout.capacity,
            false_positive_rate=(ones / layout.bits) ** layout.hashes,
        )

    # Generation 0's sizes, as before generations (tests and callers read them).
    @property
    def bits(self) -> int:
        return self.current().bits

    @property
    def hashes(self) -> int:
        return self.current().hashes


def _forget_all() -> None:
    for bloom in list(_instances):
        bloom.forget()


runtime.register(
    runtime.Part("bloom-pointers", reset=_forget_all, stop=lambda: None, after_fork=lambda: None)
)
