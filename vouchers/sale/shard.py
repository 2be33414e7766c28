"""The flash-sale shard: what the seckill script, the drain, reconcile and the dead
letters agree on, in one place (what the coupons share with them, order ids and the
pending read among it, is in vouchers/sale_orders.py).

A voucher's sale lives in shard `voucher_id % SECKILL_SHARDS`, or, when its stock is
split into buckets, in several shards, its own first (buckets.py). Every key of a shard
carries its hash tag, so one script can touch them all (one Cluster slot). An order id
carries its shard in the low bits of its counter part, so ids made by different shards
never collide and an id alone names the shard whose pending hash may hold it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import redis
from django.conf import settings

from toolkit.redis import ids
from toolkit.redis.client import has_own_redis
from toolkit.redis.lock import RedisLock
from toolkit.redis.scripts import lua

from .. import keys
from ..sale_orders import SALE_REDIS, sale_redis, shard_of

GROUP = "drain"  # the one consumer group of every order stream
# Defines shard_live(key): whether this Redis process verified the shard (heal.py).
LIVE_LIB = Path(__file__).parent / "lua" / "live_lib.lua"


_IS_LIVE = lua(__file__, "is_live.lua", prelude=(LIVE_LIB,), alias=SALE_REDIS)


def unverified(shards: list[int]) -> list[int]:
    """The shards among `shards` that this Redis process has not verified since it
    lost or rolled back its state (heal.py; one round trip on a single Redis)."""
    replies = _IS_LIVE.run_many([([keys.seckill_live(shard)], []) for shard in shards])
    for reply in replies:
        if isinstance(reply, Exception):
            raise reply
    return [shard for shard, live in zip(shards, replies, strict=True) if not live]


def sale_has_own_redis() -> bool:
    """Whether the shards live apart from the tokens (a script cannot touch both)."""
    return has_own_redis(SALE_REDIS)


def placement(voucher_id: int, sale_shards: str) -> tuple[int, ...]:
    """The shards of a sale's buckets as stored on its voucher (`Voucher.sale_shards`),
    its own shard first; one bucket in its own shard when none are stored. A shard past
    SECKILL_SHARDS (which only grows: decision 78) folds back into range."""
    if not sale_shards:
        return (shard_of(voucher_id),)
    shards = (int(part) % settings.SECKILL_SHARDS for part in sale_shards.split(","))
    return tuple(dict.fromkeys(shards))


def stock_key(voucher_id: int) -> str:
    return keys.seckill_stock(shard_of(voucher_id), voucher_id)


def buyers_key(voucher_id: int) -> str:
    return keys.seckill_buyers(shard_of(voucher_id), voucher_id)


# --- accepted orders: the stream entries ---------------------------------------------


@dataclass(frozen=True, slots=True)
class Accepted:
    """An order the sale accepted, as its stream entry carries it."""

    entry_id: bytes
    order_id: int
    user_id: int
    voucher_id: int

    @property
    def created_at(self) -> datetime:
        return datetime.fromtimestamp(ids.timestamp_of(self.order_id), tz=UTC)

    def entry_fields(self) -> dict[bytes, str]:
        """The order as seckill.lua wrote it to the stream (what `accepted_from` reads)."""
        seconds, low = ids.parts(self.order_id)
        return {
            b"voucher": str(self.voucher_id),
            b"user": str(self.user_id),
            b"seconds": str(seconds),
            b"low": str(low),
        }


def accepted_ms(entry_id: bytes) -> int:
    """When the sale accepted the order of a stream entry, in Unix ms: its entry id's
    time part (seckill.lua lets Redis make the id when it adds the entry)."""
    return int(entry_id.split(b"-")[0])


MALFORMED = (KeyError, ValueError, OverflowError)


def accepted_from(entry_id: bytes, fields: dict[bytes, bytes]) -> Accepted:
    """The order in a stream entry's fields; raises one of MALFORMED if they are broken."""
    seconds, low = int(fields[b"seconds"]), int(fields[b"low"])
    return Accepted(
        entry_id=entry_id,
        order_id=ids.compose(ids.ID_EPOCH + seconds, low),
        user_id=int(fields[b"user"]),
        voucher_id=int(fields[b"voucher"]),
    )


# --- the drain's coordination: consumer group and shard lock -------------------------


def ensure_groups() -> None:
    """Create every shard's consumer group (and stream) if missing; safe to repeat."""
    client = sale_redis()
    for shard in range(settings.SECKILL_SHARDS):
        try:
            client.xgroup_create(keys.seckill_orders(shard), GROUP, id="0", mkstream=True)
        except redis.ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise


def consumer_name(shard: int) -> str:
    # One name per shard: the lock admits one drainer per shard, so whoever drains next
    # finds the previous drainer's unacked entries under its own name.
    return f"shard-{shard}"


def shard_lock(shard: int, **kwargs: Any) -> RedisLock:
    """The lock that admits one drainer per shard; a repair or a replay takes it to hold
    the drain off."""
    return RedisLock(f"seckill-drain:{shard}", **kwargs)
