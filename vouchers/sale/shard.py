"""The flash-sale shard: what the seckill script, the drain, reconcile, the dead letters
and the order services all agree on, in one place.

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
from typing import Any, cast

import redis
from django.conf import settings

from dianping import clock
from dianping.redis import ids, keys
from dianping.redis.client import get_redis, has_own_redis
from dianping.redis.lock import RedisLock
from dianping.redis.scripts import lua

GROUP = "drain"  # the one consumer group of every order stream
# The cache alias of the Redis that holds every shard: SECKILL_REDIS_URL's when set
# (settings), else the default Redis. Every sale key and script goes through it.
SALE_REDIS = "seckill"
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


def sale_redis() -> redis.Redis:
    """The Redis that holds the flash-sale shards."""
    return get_redis(SALE_REDIS)


def sale_has_own_redis() -> bool:
    """Whether the shards live apart from the tokens (a script cannot touch both)."""
    return has_own_redis(SALE_REDIS)


def shard_of(voucher_id: int) -> int:
    return voucher_id % settings.SECKILL_SHARDS


def placement(voucher_id: int, sale_shards: str) -> tuple[int, ...]:
    """The shards of a sale's buckets as stored on its voucher (`Voucher.sale_shards`),
    its own shard first; one bucket in its own shard when none are stored. A shard past
    SECKILL_SHARDS (which only grows: decision 78) folds back into range."""
    if not sale_shards:
        return (shard_of(voucher_id),)
    shards = (int(part) % settings.SECKILL_SHARDS for part in sale_shards.split(","))
    return tuple(dict.fromkeys(shards))


def shard_bits() -> int:
    """How many low bits of an order id's counter hold its shard, so the drain and the
    order services can find an order's shard from its id alone."""
    return max(1, (settings.SECKILL_SHARDS - 1).bit_length())


def shard_of_order(order_id: int) -> int:
    return order_id & ((1 << shard_bits()) - 1)


def stock_key(voucher_id: int) -> str:
    return keys.seckill_stock(shard_of(voucher_id), voucher_id)


def buyers_key(voucher_id: int) -> str:
    return keys.seckill_buyers(shard_of(voucher_id), voucher_id)


def order_bucket_keys(voucher_id: int, order_id: int) -> tuple[str, str]:
    """(stock, buyers) of the bucket that sold `order_id`: its id carries the shard, and
    a buyer always buys in their home bucket, where their mark is kept (buckets.py)."""
    shard = shard_of_order(order_id)
    return keys.seckill_stock(shard, voucher_id), keys.seckill_buyers(shard, voucher_id)


def next_order_id(voucher_id: int) -> int:
    """An order id made outside the seckill script (a claimed normal voucher): from the
    same per-shard daily counter and layout, so it can never equal a sale's order id."""
    now = int(clock.now_seconds())
    shard = shard_of(voucher_id)
    key = keys.seckill_id_counter(shard, ids.day_of(now))
    pipe = sale_redis().pipeline(transaction=False)
    pipe.incr(key)
    pipe.expire(key, ids.COUNTER_TTL)
    counter, _ = pipe.execute()
    return ids.compose(now, int(counter) << shard_bits() | shard)


# --- accepted orders: the pending hash and the stream entries -----------------------


def pending_field(order_id: int) -> str:
    """The order's field in its shard's pending hash, and its value in the buyers hash:
    "<seconds>:<low>" (see seckill.lua)."""
    return "{}:{}".format(*ids.parts(order_id))


def pending_order_id(field: str) -> int:
    """The order id of a pending hash field (the inverse of `pending_field`)."""
    since_epoch, counter = (int(part) for part in field.split(":"))
    return ids.joined(since_epoch, counter)


def pending_owner(value: bytes) -> tuple[int, int]:
    """The (user id, voucher id) that a pending hash value ("<user>:<voucher>") names."""
    user_id, voucher_id = (int(part) for part in value.split(b":"))
    return user_id, voucher_id


def pending_order(order_id: int) -> tuple[int, int] | None:
    """(user id, voucher id) of an order the sale accepted and the drain has not stored
    yet; None for any other id."""
    key = keys.seckill_pending(shard_of_order(order_id))
    value = cast("bytes | None", sale_redis().hget(key, pending_field(order_id)))
    return None if value is None else pending_owner(value)


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
