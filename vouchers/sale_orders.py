"""The flash sale's orders as both the sale (vouchers/sale/) and the coupons
(vouchers/coupons/) know them: the Redis that holds the sale, an order id and the shard
it names, the pending-order read, the release of a dead order, the order jobs' queue,
and what an accepted order handed to the coupons looks like and may be refused for.

It imports neither side, so neither reaches into the other: the sale hands its stored
orders over through one coupons function (`vouchers.coupons.intake.store_accepted`,
decision 455), and the coupons read and release the sale's orders through this module.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol, cast

import redis
from django.conf import settings

from toolkit import clock
from toolkit.redis import ids
from toolkit.redis.client import get_redis
from toolkit.redis.delayqueue import DelayQueue
from toolkit.redis.scripts import lua

from . import keys

# The cache alias of the Redis that holds every shard: SECKILL_REDIS_URL's when set
# (settings), else the default Redis. Every sale key and script goes through it.
SALE_REDIS = "seckill"


def sale_redis() -> redis.Redis:
    """The Redis that holds the flash-sale shards."""
    return get_redis(SALE_REDIS)


def shard_of(voucher_id: int) -> int:
    return voucher_id % settings.SECKILL_SHARDS


def shard_bits() -> int:
    """Low bits of an order id's counter part that carry its shard (ids stay unique)."""
    return max(1, (settings.SECKILL_SHARDS - 1).bit_length())


def shard_of_order(order_id: int) -> int:
    return order_id & ((1 << shard_bits()) - 1)


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


# --- accepted orders not yet stored: the pending hash --------------------------------


def pending_field(order_id: int) -> str:
    """The order's field in its shard's pending hash, and its value in the buyers hash:
    "<seconds>:<low>" (see seckill.lua)."""
    return "{}:{}".format(*ids.parts(order_id))


def pending_order_id(field: str) -> int:
    """The order id of a pending hash field (the inverse of `pending_field`)."""
    since_epoch, counter = (int(part) for part in field.split(":"))
    return ids.joined(since_epoch, counter)


def pending_owner(value: bytes) -> tuple[int, int]:
    """(user id, voucher id) from a pending hash value ("<user>:<voucher>")."""
    user_id, voucher_id = (int(part) for part in value.split(b":"))
    return user_id, voucher_id


def pending_order(order_id: int) -> tuple[int, int] | None:
    """(user id, voucher id) of an order the sale accepted and the drain has not stored
    yet; None for any other id."""
    key = keys.seckill_pending(shard_of_order(order_id))
    value = cast("bytes | None", sale_redis().hget(key, pending_field(order_id)))
    return None if value is None else pending_owner(value)


# --- a dead order's release, and the order jobs -------------------------------------

_RELEASE = lua(__file__, "release.lua", alias=SALE_REDIS)


def sale_release(*, voucher_id: int, user_id: int, order_id: int, unit_back: bool) -> bool:
    """The Redis side of a dead order: free the buyer of `order_id` and, with
    `unit_back`, return its unit to the bucket that sold it. The database decides (a
    cancel or refund commits first); the sale follows after commit, and the order's job
    retries until it agrees (vouchers.coupons.jobs). Safe to repeat: only a buyer entry
    that still names this order is touched. False when there was nothing to do. Web
    processes remembering "sold out" stop within SECKILL_SOLD_OUT_FLAG_TTL (1 s)."""
    released = _RELEASE(
        order_bucket_keys(voucher_id, order_id),
        [user_id, pending_field(order_id), "1" if unit_back else "0"],
    )
    return bool(released)


def order_jobs() -> DelayQueue:
    """Jobs per order id: the pay timeout of an unpaid order (the drain schedules it), and
    the retry of a unit's release to Redis after a cancel or refund (vouchers.coupons.jobs
    runs both). The queue keeps its first name, so jobs queued before it grew stay
    found. It lives with the sale's shards: as durable as they are, and healed with them."""
    return DelayQueue("order-pay-timeout", lease=60, alias=SALE_REDIS)


# --- what the sale hands to the coupons ----------------------------------------------


class AcceptedOrder(Protocol):
    """An order the sale accepted, as the coupons store it."""

    @property
    def order_id(self) -> int: ...
    @property
    def user_id(self) -> int: ...
    @property
    def voucher_id(self) -> int: ...
    @property
    def created_at(self) -> datetime: ...


class OrderFault(Exception):
    """The orders' own data is wrong (not the system): always counted against them, so a
    broken voucher ends in the dead letters instead of stalling its whole shard."""


class StockMismatch(OrderFault):
    """The database has fewer units than Redis sold: reconcile before persisting."""


class VoucherGone(OrderFault):
    """The order's voucher was deleted (a delete refuses a voucher with buyers, so only a
    raw database edit gets here)."""


class IdCollision(OrderFault):
    """An order id already used by a different order (should never happen; alarm)."""
