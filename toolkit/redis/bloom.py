"""A Bloom filter on a plain Redis bitmap (no RedisBloom module needed).

"No" is certain, "maybe" is wrong with probability 0.1 % at `capacity` items.
Bits are read and written with one BITFIELD command each way. The last bit of
the bitmap is a sentinel set when the filter is built: a filter that was never
built (or was lost with Redis) answers "maybe" for everything, so losing it
degrades to no filtering instead of rejecting all.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable

import redis

from . import keys
from .client import get_redis

_ERROR_RATE = 0.001


class BloomFilter:
    def __init__(self, key: str, *, capacity: int) -> None:
        if capacity < 1:
            raise ValueError("capacity must be >= 1")
        self.key = key
        self.bits = math.ceil(-capacity * math.log(_ERROR_RATE) / math.log(2) ** 2)
        self.hashes = max(1, round(self.bits / capacity * math.log(2)))
        self.sentinel = self.bits  # one bit past the filter's own bits

    def _offsets(self, item: str) -> list[int]:
        # Kirsch-Mitzenmacher: k hashes from two halves of one digest.
        digest = hashlib.blake2b(item.encode(), digest_size=16).digest()
        h1 = int.from_bytes(digest[:8], "little")
        h2 = int.from_bytes(digest[8:], "little") | 1
        return [(h1 + i * h2) % self.bits for i in range(self.hashes)]

    def might_contain(self, item: str) -> bool:
        """False only if `item` was certainly never added (and the filter is built)."""
        pipe = get_redis().pipeline(transaction=False)
        self.queue_check(pipe, item)
        return self.verdict(pipe.execute()[0])

    def queue_check(self, pipe: redis.client.Pipeline, item: str) -> None:
        """Queue the check on a caller's pipeline, to share its round trip; see `verdict`."""
        args: list[str | int] = ["GET", "u1", self.sentinel]
        for offset in self._offsets(item):
            args += ["GET", "u1", offset]
        pipe.execute_command("BITFIELD_RO", self.key, *args)

    @staticmethod
    def verdict(bits: list[int]) -> bool:
        built, *item_bits = bits
        return not built or all(item_bits)

    def add(self, items: Iterable[str]) -> None:
        self._set_bits(self.key, items)

    def queue_add(self, pipe: redis.client.Pipeline, items: Iterable[str]) -> None:
        """Queue `add` on a caller's pipeline, to share its round trip."""
        args = self._set_args(items)
        if args:
            pipe.execute_command("BITFIELD", self.key, *args)

    def rebuild(self, items: Iterable[str], *, batch: int = 10_000) -> int:
        """Build a fresh filter from all items, swap it in by RENAME; returns the count."""
        tmp = keys.rebuilding(self.key)
        client = get_redis()
        client.delete(tmp)
        chunk: list[str] = []
        count = 0
        for item in items:
            count += 1
            chunk.append(item)
            if len(chunk) >= batch:
                self._set_bits(tmp, chunk)
                chunk = []
        self._set_bits(tmp, chunk)
        client.execute_command("BITFIELD", tmp, "SET", "u1", self.sentinel, 1)
        client.rename(tmp, self.key)
        return count

    def _set_bits(self, key: str, items: Iterable[str]) -> None:
        args = self._set_args(items)
        if args:
            get_redis().execute_command("BITFIELD", key, *args)

    def _set_args(self, items: Iterable[str]) -> list[str | int]:
        args: list[str | int] = []
        for item in items:
            for offset in self._offsets(item):
                args += ["SET", "u1", offset, 1]
        return args
