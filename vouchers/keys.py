"""The vouchers' Redis keys: the flash sale's shards and the shops whose `sold` is due a
count. Here, not in vouchers/sale/, because vouchers/sale_orders.py (which the coupons
use too) builds some of them.

Every key is a row of docs/redis-keys.md (tests/toolkit/test_keys.py); the toolkit's
own keys and the conventions they share are in toolkit/redis/keys.py."""

from __future__ import annotations

# Everything one seckill script touches carries its shard's hash tag {s<shard>}, so
# stock, buyers and the order stream of a voucher live in one Cluster slot.


def sold_changed() -> str:
    """Set of voucher ids whose paid coupons changed since their shops' `sold` was last
    counted (vouchers.coupons.sold)."""
    return "sold:changed-vouchers"


def seckill_stock(shard: int, voucher_id: int) -> str:
    """Units of a seckill voucher left in Redis (the sale's source of truth while it runs)."""
    return f"seckill:{{s{shard}}}:stock:{voucher_id}"


def seckill_buyers(shard: int, voucher_id: int) -> str:
    """Hash user id -> order ("<seconds>:<low>") of a seckill voucher's buyers (one each)."""
    return f"seckill:{{s{shard}}}:buyers:{voucher_id}"


def seckill_orders(shard: int) -> str:
    """Stream of accepted orders of one shard, drained into the database by Celery."""
    return f"seckill:{{s{shard}}}:orders"


def seckill_dead_letters(shard: int) -> str:
    """Stream of orders that kept failing to persist: kept for operators, never dropped."""
    return f"seckill:{{s{shard}}}:dead"


def seckill_pending(shard: int) -> str:
    """Hash order-id -> "user:voucher" of accepted orders not yet in the database."""
    return f"seckill:{{s{shard}}}:pending"


def seckill_id_counter(shard: int, day: str) -> str:
    """Per-shard, per-UTC-day counter behind order ids made inside the seckill script."""
    return f"seckill:{{s{shard}}}:id:{day}"


def seckill_failures(shard: int) -> str:
    """Hash stream-entry-id -> how often persisting it failed on its own account."""
    return f"seckill:{{s{shard}}}:failures"


def seckill_lag(shard: int) -> str:
    """Hash: histogram of accept-to-persist lag of a shard's drained orders (fields
    le_<ms>, le_inf); the whole sale's is the sum over the shards."""
    return f"seckill:{{s{shard}}}:lag"


def seckill_live(shard: int) -> str:
    """The run id of the Redis process that verified the shard against the database: a
    restart, a failover or a restored backup makes it stale (vouchers/sale/heal.py)."""
    return f"seckill:{{s{shard}}}:live"


def seckill_transit(shard: int) -> str:
    """Hash move id -> "<voucher>:<to shard>:<units>:<ms>" of stock this shard gave to
    another bucket of the same sale and that bucket has not confirmed yet (buckets.py)."""
    return f"seckill:{{s{shard}}}:transit"


def seckill_moves(shard: int) -> str:
    """Hash move id -> ms of the stock moves this shard received: a move is applied once."""
    return f"seckill:{{s{shard}}}:moves"


def seckill_funnel(shard: int, user_id: int) -> str:
    """A user's flash-sale funnel, in the shard's slot so the seckill script can check it."""
    return f"{seckill_funnel_prefix(shard)}{user_id}"


def seckill_funnel_prefix(shard: int) -> str:
    """What the seckill script completes with the user id it reads from a token."""
    return f"seckill:{{s{shard}}}:funnel:"


def seckill_challenge(shard: int, voucher_id: int, user_id: int) -> str:
    """A user's open challenge for one sale: the HMAC of its id and answer (challenge.py),
    in the user's home bucket's slot so the seckill script checks and deletes it."""
    return f"{seckill_challenge_prefix(shard, voucher_id)}{user_id}"


def seckill_challenge_prefix(shard: int, voucher_id: int) -> str:
    """What the seckill script completes with the user id it reads from a token."""
    return f"seckill:{{s{shard}}}:challenge:{voucher_id}:"
