"""One hot sale across several Redis masters: its stock split into buckets (decision 309).

A voucher's keys share its shard's hash tag, so one sale runs on one Redis thread however
large the Cluster. A sale created with buckets keeps one stock key in each of several
shards, chosen on different masters where the Cluster has them (`choose_shards`; stored on
the voucher, never changed). A buyer's home bucket is `shards[user_id % n]`: the buyer's
mark lives there, so the seckill script, unchanged and run on one bucket, still decides
"one order per user" in one atomic step.

When a buyer's home bucket is empty, the request moves stock to it from the fullest other
bucket (half of that bucket, so buckets even out in a few moves) and buys again (`refill`).
"Sold out" is answered once every other bucket was seen empty and no unit of the sale is
in transit, or after one try per bucket lost the units it moved to other buyers of the
same bucket (who got them); while the units left are in a bucket whose Redis lost its
state and is not healed yet, or in a move too recent to settle, the buyer is told to try
again (503), as that bucket's own buyers are (decisions 310, 313, 507). Moves take the
sale's moves lock, so a repair reading every bucket never sees half a move.

A move is two scripts in two slots. The giving bucket takes the units and records them in
its shard's transit hash in the same step; the receiving bucket applies a move id at most
once. A process that dies in between leaves the units in transit: the drain settles its
shard's moves on its next run (`settle_moves`), so no unit is stranded, and reconcile and
the heal count units in transit (reconcile.py).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, cast

from django.conf import settings

from toolkit import clock
from toolkit.redis.cluster import is_cluster
from toolkit.redis.lock import RedisLock
from toolkit.redis.scripts import lua

from .. import keys
from ..metrics import bucket_moves

if TYPE_CHECKING:
    from redis.cluster import RedisCluster
from ..sale_orders import SALE_REDIS, sale_redis, shard_of
from .shard import LIVE_LIB

_GIVE = lua(__file__, "bucket_give.lua", prelude=(LIVE_LIB,), alias=SALE_REDIS)
_RECEIVE = lua(__file__, "bucket_receive.lua", prelude=(LIVE_LIB,), alias=SALE_REDIS)
REFILL_WAIT_S = 0.2  # a buyer waits this long for another buyer's refill of the sale
MOVES_REMEMBERED_S = 2 * 24 * 3600  # far longer than a move stays in transit
SETTLE_AFTER_MS = 2_000  # a move older than this has lost its mover: settle it


def choose_shards(voucher_id: int, count: int) -> list[int]:
    """`count` shards for a new sale's buckets, its own shard first, then the next ones
    on masters not used yet (on a Cluster), then any: at most SECKILL_SHARDS."""
    total = settings.SECKILL_SHARDS
    candidates = [(shard_of(voucher_id) + step) % total for step in range(total)]
    count = max(1, min(count, total))
    owner = _master_of_shard()
    chosen: list[int] = []
    masters: set[str] = set()
    for shard in candidates:
        if len(chosen) < count and owner(shard) not in masters:
            chosen.append(shard)
            masters.add(owner(shard))
    chosen += [shard for shard in candidates if shard not in chosen][: count - len(chosen)]
    return chosen


def _master_of_shard() -> Callable[[int], str]:
    """Which master serves a shard: one name for every shard off a Cluster."""
    client = sale_redis()
    if not is_cluster(client):
        return lambda shard: "one"
    cluster = cast("RedisCluster", client)
    return lambda shard: cluster.get_node_from_key(keys.seckill_live(shard)).name


def default_count(stock: int | None) -> int:
    """Buckets for a new sale that names none: SECKILL_AUTO_BUCKETS from a stock of
    SECKILL_BUCKETS_FROM_STOCK on (0: never), else one."""
    threshold = settings.SECKILL_BUCKETS_FROM_STOCK
    if threshold and stock is not None and stock >= threshold:
        return settings.SECKILL_AUTO_BUCKETS
    return 1


def split(units: int, buckets: int) -> list[int]:
    """`units` across `buckets` as evenly as whole units allow, the first ones fuller."""
    share, rest = divmod(units, buckets)
    return [share + (1 if index < rest else 0) for index in range(buckets)]


def home_shard(shards: tuple[int, ...], user_id: int) -> int:
    """The bucket holding the buyer's mark, where they always buy."""
    return shards[user_id % len(shards)]


def moves_lock(voucher_id: int, *, wait: float) -> RedisLock:
    """Held by whoever moves a sale's stock, settles its moves, or reads its buckets to
    repair them (reconcile.py): a move is never half seen."""
    return RedisLock(f"seckill-moves:{voucher_id}", ttl=10, watchdog=True, wait=wait)


class Refill(Enum):
    """What `refill` did for a buyer whose home bucket was empty."""

    MOVED = "moved"  # units moved home (or another buyer was moving some): buy again
    EMPTY = "empty"  # every other bucket is empty: the sale is sold out
    PAUSED = "paused"  # the units left are in a bucket not verified since a Redis loss


class Unverified(Exception):
    """The giving bucket's shard is not verified since its Redis lost its state."""


def refill(voucher_id: int, shards: tuple[int, ...], home: int) -> Refill:
    """Move stock to an empty home bucket from the fullest other one that can give; when
    none can, first deliver the sale's moves left halfway (`_deliver_stuck`) and try
    again, since those units may have landed at home or in a bucket that can give now."""
    lock = moves_lock(voucher_id, wait=REFILL_WAIT_S)
    if not lock.acquire():
        return Refill.MOVED  # another buyer held it past REFILL_WAIT_S: they are refilling
    try:
        moved = _move_home(voucher_id, shards, home)
        if moved is not Refill.EMPTY:
            return moved
        stuck = _deliver_stuck(voucher_id, shards)
        if stuck is not Refill.MOVED:
            return stuck
        # Delivered: at home (buy again), or in a bucket that can give now.
        again = _move_home(voucher_id, shards, home)
        return Refill.PAUSED if again is Refill.PAUSED else Refill.MOVED
    finally:
        lock.release()


def _move_home(voucher_id: int, shards: tuple[int, ...], home: int) -> Refill:
    """Half of the fullest other bucket moved home (MOVED); PAUSED when the only units
    left are in unverified buckets, EMPTY when no other bucket has any."""
    others = [shard for shard in shards if shard != home]
    pipe = sale_redis().pipeline(transaction=False)
    for shard in others:
        pipe.get(keys.seckill_stock(shard, voucher_id))
    left = {shard: int(raw or 0) for shard, raw in zip(others, pipe.execute(), strict=True)}
    paused = False
    for giver in sorted(others, key=lambda shard: -left[shard]):
        if left[giver] <= 0:
            break
        try:
            transit = give(voucher_id, giver, home, (left[giver] + 1) // 2)
        except Unverified:
            paused = True
            continue
        if transit is not None:
            return Refill.MOVED if deliver(giver, transit) else Refill.PAUSED
    return Refill.PAUSED if paused else Refill.EMPTY


def _deliver_stuck(voucher_id: int, shards: tuple[int, ...]) -> Refill:
    """No other bucket has units to give, but some may sit in transit: a mover failed
    between a move's two halves (its receiver's Redis went down, or the process died).
    Those are delivered now, as the drain would on its next run: MOVED if any was, PAUSED
    if some are too recent to settle or their receiver is unverified, EMPTY if none is
    in transit (sold out). The caller holds the sale's moves lock."""
    pipe = sale_redis().pipeline(transaction=False)  # every bucket's moves: one round trip
    for giver in shards:
        pipe.hgetall(keys.seckill_transit(giver))
    stuck = [
        (giver, transit)
        for giver, moves in zip(shards, pipe.execute(), strict=True)
        for transit in (Transit.parse(move_id, value) for move_id, value in moves.items())
        if transit.voucher_id == voucher_id
    ]
    if not stuck:
        return Refill.EMPTY
    cutoff = clock.now_ms() - SETTLE_AFTER_MS  # a younger one may still have its mover
    delivered = [deliver(giver, transit) for giver, transit in stuck if transit.at_ms <= cutoff]
    return Refill.MOVED if any(delivered) else Refill.PAUSED


def give(voucher_id: int, giver: int, receiver: int, units: int) -> Transit | None:
    """A move's first half: up to `units` taken from the giving bucket and recorded in
    transit there, in one step; None when it had none to give, Unverified raised when
    its shard is unverified. The caller holds the sale's moves lock, and delivers it."""
    move_id = f"{voucher_id}:{uuid.uuid4().hex[:16]}"
    now_ms = clock.now_ms()
    taken = int(
        _GIVE(
            [
                keys.seckill_stock(giver, voucher_id),
                keys.seckill_transit(giver),
                keys.seckill_live(giver),
            ],
            [move_id, f"{voucher_id}:{receiver}", units, now_ms],
        )
    )
    if taken < 0:
        raise Unverified(giver)
    if not taken:
        return None
    bucket_moves(voucher_id).inc(taken)
    return Transit(move_id, voucher_id, receiver, taken, now_ms)


@dataclass(frozen=True, slots=True)
class Transit:
    """A move recorded by its giving bucket (a value of keys.seckill_transit)."""

    move_id: str
    voucher_id: int
    to_shard: int
    units: int
    at_ms: int

    @classmethod
    def parse(cls, move_id: bytes, value: bytes) -> Transit:
        voucher, to_shard, units, at_ms = (int(part) for part in value.split(b":"))
        return cls(move_id.decode(), voucher, to_shard, units, at_ms)


def transits(shard: int) -> list[Transit]:
    """The moves the shard gave and their receivers have not confirmed to it yet."""
    raw = cast("dict[bytes, bytes]", sale_redis().hgetall(keys.seckill_transit(shard)))
    return [Transit.parse(move_id, value) for move_id, value in raw.items()]


def deliver(giver: int, transit: Transit) -> bool:
    """A move's second half: applied at its receiver (at most once, however often it is
    delivered) and forgotten at its giver; False while the receiver is unverified (its
    heal counts the move, which stays in transit)."""
    applied = int(
        _RECEIVE(
            [
                keys.seckill_stock(transit.to_shard, transit.voucher_id),
                keys.seckill_moves(transit.to_shard),
                keys.seckill_live(transit.to_shard),
            ],
            [transit.move_id, transit.units, clock.now_ms(), MOVES_REMEMBERED_S],
        )
    )
    if applied < 0:
        return False
    sale_redis().hdel(keys.seckill_transit(giver), transit.move_id)
    return True


def settle_moves(shard: int, *, older_than_ms: int = SETTLE_AFTER_MS) -> int:
    """Deliver the shard's moves left in transit by a mover that died (the drain's
    recovering pass); returns how many were delivered."""
    cutoff = clock.now_ms() - older_than_ms
    delivered = 0
    for transit in transits(shard):
        if transit.at_ms > cutoff:
            continue
        lock = moves_lock(transit.voucher_id, wait=1.0)
        if lock.acquire():  # else its mover or a repair is at work: the next run settles it
            try:
                delivered += deliver(shard, transit)
            finally:
                lock.release()
    return delivered
