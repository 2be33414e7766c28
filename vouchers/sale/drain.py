"""Persist accepted flash-sale orders from the Redis streams into the database.

Per shard, one drainer at a time (a lock): read a batch from the consumer group,
write it in one transaction (bulk insert, one guarded stock UPDATE per voucher),
and XACK only after the commit. What is not acked is read again when the drainer
recovers (the first pass of a task run, and after a failure): first its own pending
entries, then other consumers' entries idle for too long (XAUTOCLAIM); an ordinary
poll reads only new entries. Redelivery never duplicates: an order id already in the
database is skipped, and (user, voucher) is unique. An entry that keeps failing on its own
(not because the database is down) goes to a dead-letter stream with the reason:
reported, never lost, never blocking others.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any, cast

import redis
from django.conf import settings
from django.db import InterfaceError, OperationalError, close_old_connections

from toolkit import clock, identity
from toolkit.redis.scripts import lua

from .. import keys
from ..coupons.intake import store_accepted
from ..metrics import LAG_BUCKETS_MS, drain_counters
from ..sale_orders import SALE_REDIS, OrderFault, order_jobs, pending_field, sale_redis
from . import buckets, heal
from .shard import (
    GROUP,
    MALFORMED,
    Accepted,
    accepted_from,
    accepted_ms,
    consumer_name,
    ensure_groups,
    shard_lock,
    unverified,
)

log = logging.getLogger(__name__)
_FINISH = lua(__file__, "finish.lua", alias=SALE_REDIS)

Entry = tuple[bytes, dict[bytes, bytes]]  # a stream entry: id, fields


class SystemFault(Exception):
    """A whole batch failed order by order: treated like an outage, counted against none."""


def drain_shard(shard: int, *, batch: int | None = None, recover: bool = False) -> int:
    """Persist up to `batch` orders of one shard; returns how many entries were settled
    (persisted or dead-lettered). The caller holds the shard's lock.

    `recover` first re-reads what was left unacked (a dead drainer's batch, a failed one,
    orders whose own failures were counted); without it only new entries are read, in
    one round trip, which is what an idle poll costs.

    Raises one of NOT_THEIR_FAULT when the database cannot be reached or a whole batch
    fails alike: nothing is acked and nothing counts against the entries; the caller
    backs off and tries again.
    """
    batch = batch or settings.SECKILL_DRAIN_BATCH
    entries = _read(shard, batch, recover=recover)
    if not entries:
        return 0
    persisted, _, batch_size = drain_counters(shard)
    batch_size.observe(len(entries))
    good, malformed = _parse(entries)
    _dead_letter(shard, malformed)
    try:
        paid_at_once = persist(good)
        done = good
    except DATABASE_DOWN:
        raise
    except Exception:
        # Find the bad apples one by one, so one bad order cannot hold up the rest.
        log.exception("seckill drain: batch of %d failed; retrying one by one", len(good))
        done, failed, paid_at_once = [], [], set()
        for order in good:
            try:
                paid_at_once |= persist([order])
                done.append(order)
            except DATABASE_DOWN:
                raise
            except Exception as exc:
                failed.append((order, exc))
        if len(failed) > 1 and not done and not _their_own(failed):
            # Every order failing alike is the system's fault (a migration half-applied,
            # say), not theirs: count nothing, and let the caller back off.
            raise SystemFault(f"all {len(failed)} orders failed: {failed[0][1]!r}") from None
        for order, error in failed:
            _count_failure(shard, order, error)
    _finish(shard, done, paid_at_once)
    persisted.inc(len(done))  # redeliveries found already persisted count again: rare
    return len(done) + len(malformed)


def drain_run() -> int:
    """Drain every shard this run can lock, round-robin, for SECKILL_DRAIN_LOOP_SECONDS,
    healing first any whose Redis lost its state (heal.py); returns how many orders were
    settled.

    Beat starts a run every 10 s; a shard another run still drains is skipped. The first
    pass recovers what an earlier drainer left unacked, and so does the pass after a
    failure; the others read only new entries (one round trip per shard and poll). An
    order whose own failure was counted is thus retried once per run, a natural backoff.
    """
    locks = [
        (shard, lock)
        for shard in range(settings.SECKILL_SHARDS)
        # A short lease (renewed by the watchdog while we run): a killed drainer blocks
        # its shards for at most 10 s, until a later run takes them over.
        if (lock := shard_lock(shard, ttl=10, watchdog=True)).acquire()
    ]
    settled = 0
    recover = True
    checked = False  # the sale's Redis is this database's: once a run (decision 292)
    try:
        deadline = time.monotonic() + settings.SECKILL_DRAIN_LOOP_SECONDS
        while locks and time.monotonic() < deadline:
            if any(lock.lost for _, lock in locks):
                log.warning("seckill drain: a shard lock was lost; stopping this run")
                break
            try:
                checked = checked or _sale_redis_is_ours()
                per_shard = _drain_pass([shard for shard, _ in locks], recover=recover)
            except identity.RedisOfAnotherDatabase:
                break  # logged; the next run looks again
            except NOT_THEIR_FAULT:
                log.exception("seckill drain: database unavailable; nothing acked, retrying")
                close_old_connections()
                time.sleep(1)
                recover = True  # what was read but not acked must be read again
                continue
            recover = False
            settled += sum(per_shard)
            if max(per_shard) < settings.SECKILL_DRAIN_BATCH:
                # No shard filled a batch (idle, or orders trickling in): let them gather
                # before the next pass, so they are stored in fewer, larger transactions.
                time.sleep(settings.SECKILL_DRAIN_LINGER)
    finally:
        for _, lock in locks:
            lock.release()
    return settled


def _sale_redis_is_ours() -> bool:
    """Whether the sale's Redis belongs to this database, so a drain never stores another
    installation's orders. True once the Redis carries this database's identity (it is
    claimed if it carries none); RedisOfAnotherDatabase when it carries another's. False
    while the database cannot answer: this pass stores nothing and the next one asks again."""
    try:
        heal.check_belongs_here()
    except DATABASE_DOWN:
        return False
    return True


def _drain_pass(shards: list[int], *, recover: bool) -> list[int]:
    """One batch from each shard; a shard whose Redis lost its state is healed first (its
    sale waits meanwhile), and a recovering pass first trims what was acked but left in
    the stream (by a release that trimmed less), so an idle stream reports no lag."""
    for shard in unverified(shards):
        heal.shard_heal(shard)  # which claims the Redis back if it was emptied
    if recover:
        for shard in shards:
            trim_acked(shard)
            buckets.settle_moves(shard)  # stock a dead mover left between two buckets
    return [drain_shard(shard, recover=recover) for shard in shards]


def _their_own(failed: list[tuple[Accepted, Exception]]) -> bool:
    return any(isinstance(exc, OrderFault) for _, exc in failed)


# The database being unreachable is nobody's fault: such errors are never held against
# an entry (a deadlock or lost connection in MySQL is an OperationalError too).
DATABASE_DOWN = (OperationalError, InterfaceError)
NOT_THEIR_FAULT = (*DATABASE_DOWN, SystemFault)


def read_orders(shard: int, batch: int, *, recover: bool = False) -> list[Accepted]:
    """The well-formed orders `drain_shard` would persist next, delivered to this shard's
    consumer and left unacked (a drain stopped before its commit, for reconcile and tests)."""
    good, _ = _parse(_read(shard, batch, recover=recover))
    return good


def _read(shard: int, batch: int, *, recover: bool) -> list[Entry]:
    """Entries to work on: when recovering, what was left unacked first, then new ones."""
    client = sale_redis()
    stream, consumer = keys.seckill_orders(shard), consumer_name(shard)
    entries = _unacked(client, stream, consumer, batch) if recover else []
    if len(entries) < batch:
        entries += _read_group(client, stream, consumer, ">", batch - len(entries))
    return entries


def _unacked(client: redis.Redis, stream: str, consumer: str, batch: int) -> list[Entry]:
    """This shard's own unacked entries (a previous drainer died or failed), then other
    consumers' entries idle too long."""
    entries = _read_group(client, stream, consumer, "0", batch)
    if len(entries) < batch:
        _, claimed, _ = client.xautoclaim(
            stream,
            GROUP,
            consumer,
            settings.SECKILL_CLAIM_IDLE_MS,
            "0-0",
            count=batch - len(entries),
        )
        entries += [(eid, fields) for eid, fields in claimed if fields]
    return entries


def _read_group(
    client: redis.Redis, stream: str, consumer: str, start: str, count: int
) -> list[Entry]:
    """Read entries with XREADGROUP from `start`: "0" for this consumer's unacked
    entries, ">" for new ones. Creates the groups when a Redis lost them."""
    try:
        reply = client.xreadgroup(GROUP, consumer, {stream: start}, count=count)
    except redis.ResponseError as exc:
        if "NOGROUP" not in str(exc):
            raise
        ensure_groups()
        reply = client.xreadgroup(GROUP, consumer, {stream: start}, count=count)
    # [[stream, [(entry id, fields), ...]]]: one stream asked, our client never decodes.
    replies = cast("list[tuple[bytes, list[Entry]]]", reply)
    return [(eid, fields) for eid, fields in (replies[0][1] if replies else []) if fields]


def _parse(entries) -> tuple[list[Accepted], list[tuple[bytes, dict, str]]]:
    good, malformed = [], []
    for entry_id, fields in entries:
        try:
            good.append(accepted_from(entry_id, fields))
        except MALFORMED as exc:
            malformed.append((entry_id, fields, f"malformed: {exc!r}"))
    return good, malformed


def _count_failure(shard: int, order: Accepted, exc: Exception) -> None:
    """Count a failure that is the entry's own; at the limit it goes to the dead letters."""
    failures_key = keys.seckill_failures(shard)
    failures = sale_redis().hincrby(failures_key, order.entry_id, 1)
    log.warning("seckill drain: order %s failed (%d): %s", order.order_id, failures, exc)
    if failures >= settings.SECKILL_MAX_DELIVERIES:
        fields = {**order.entry_fields(), b"order": str(order.order_id)}  # order: for people
        # It will never persist: it stops showing as pending (the dead letter keeps it).
        _dead_letter(
            shard,
            [(order.entry_id, fields, f"failed {failures} times: {exc!r}")],
            no_longer_pending=[pending_field(order.order_id)],
        )


def persist(orders: list[Accepted]) -> set[int]:
    """Hand accepted orders to the coupons to store, in one transaction (the seam:
    vouchers.coupons.intake); returns the ids of those paid at once, which need no pay
    timeout."""
    return store_accepted(orders)


def _finish(shard: int, done: list[Accepted], paid_at_once: set[int]) -> None:
    """After commit: schedule the pay timeouts (of the orders not paid at once), then ack,
    clean up and trim the stream in one script on the shard's slot.

    Schedules first, and only then the ack: a schedule Redis refuses (out of memory, say)
    raises before anything is acked, so an order is never acked without its pay timeout.
    A crash in between only means a redelivery, which finds the orders persisted and
    schedules again. Two round trips (one when every order was paid at once), and each
    step keeps to one Cluster slot."""
    if not done:
        return
    unpaid = [str(o.order_id) for o in done if o.order_id not in paid_at_once]
    if unpaid:
        order_jobs().schedule_many(unpaid, delay=settings.ORDER_PAY_TIMEOUT)
    _settle(shard, done)


def trim_acked(shard: int) -> int:
    """Drop the entries the (one) consumer group has acked, so a stream holds only work
    in progress. Returns how many entries went; none from a Redis that lost the group
    (a failover before it replicated, a restart without it): the group is made again."""
    try:
        return _settle(shard, [])
    except redis.ResponseError as exc:
        if "NOGROUP" not in str(exc):
            raise
        ensure_groups()
        return 0


def _settle(shard: int, done: list[Accepted]) -> int:
    args: list[object] = [GROUP, len(done)]
    args += [o.entry_id for o in done]
    args += [pending_field(o.order_id) for o in done]
    for bucket, count in _lag_histogram(done).items():
        args += [bucket, count]
    stream_keys = [
        keys.seckill_orders(shard),
        keys.seckill_pending(shard),
        keys.seckill_failures(shard),
        keys.seckill_lag(shard),
    ]
    return int(_FINISH(stream_keys, args))


def oldest_waiting_seconds() -> float | None:
    """How long the oldest accepted order not yet persisted has waited, in seconds (None
    when every shard is drained): the first entry of each shard's stream, since the drain
    trims what it acks in the same step."""
    pipe = sale_redis().pipeline(transaction=False)
    for shard in range(settings.SECKILL_SHARDS):
        pipe.xrange(keys.seckill_orders(shard), count=1)
    firsts = [accepted_ms(entries[0][0]) for entries in pipe.execute() if entries]
    return round((clock.now_ms() - min(firsts)) / 1000, 1) if firsts else None


def drain_health() -> tuple[dict[str, Any], bool]:
    """/api/health's view of the drain: stalled when an order has waited longer than
    SECKILL_DRAIN_STALL_SECONDS (no worker, a worker that lost its broker, a stuck order)."""
    waited = oldest_waiting_seconds()
    stalled = waited is not None and waited > settings.SECKILL_DRAIN_STALL_SECONDS
    return {"drain": "stalled" if stalled else "ok", "drain_lag_seconds": waited}, not stalled


def _lag_histogram(done: list[Accepted]) -> Counter[str]:
    """Accept-to-persist lag per order, bucketed (the stream entry id is the accept time)."""
    now_ms = clock.now_ms()
    histogram: Counter[str] = Counter()
    for order in done:
        lag = now_ms - accepted_ms(order.entry_id)
        bucket = next((b for b in LAG_BUCKETS_MS if lag <= b), None)
        histogram[f"le_{bucket}" if bucket else "le_inf"] += 1
    return histogram


def _dead_letter(
    shard: int, poison: list[tuple[bytes, dict, str]], *, no_longer_pending: Sequence[str] = ()
) -> None:
    """Move entries that cannot be persisted aside, with the reason: reported, kept. In
    the same step their orders leave the pending hash (reconcile reads it as "sold,
    not yet in the database")."""
    if not poison:
        return
    dead_lettered = drain_counters(shard)[1]
    pipe = sale_redis().pipeline(transaction=True)
    if no_longer_pending:
        pipe.hdel(keys.seckill_pending(shard), *no_longer_pending)
    for entry_id, fields, reason in poison:
        log.error("seckill drain: entry %s dead-lettered (%s): %s", entry_id, reason, fields)
        pipe.xadd(
            keys.seckill_dead_letters(shard), {**fields, b"entry": entry_id, b"reason": reason}
        )
        pipe.xack(keys.seckill_orders(shard), GROUP, entry_id)
        pipe.hdel(keys.seckill_failures(shard), entry_id)
    pipe.execute()
    dead_lettered.inc(len(poison))
