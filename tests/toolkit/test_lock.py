"""The distributed lock, against a real Redis, with real threads and processes."""

from __future__ import annotations

import multiprocessing
import threading
import time

import pytest

from tests.helpers import run_concurrently, wait_until
from toolkit.redis.client import get_redis
from toolkit.redis.lock import LockTimeout, RedisLock

HOLDERS = "test:lock:holders"
OVERLAPS = "test:lock:overlaps"
ENTRIES = "test:lock:entries"


def _critical_section() -> None:
    """Count concurrent holders in Redis, so overlaps across processes are seen too."""
    client = get_redis()
    if client.incr(HOLDERS) != 1:
        client.incr(OVERLAPS)
    time.sleep(0.001)  # widen the window an overlap would need
    client.incr(ENTRIES)
    client.decr(HOLDERS)


def _hammer(rounds: int) -> None:
    for _ in range(rounds):
        lock = RedisLock("contended", ttl=10, wait=30, retry_interval=0.005)
        with lock:
            _critical_section()


def test_second_holder_is_refused_until_release() -> None:
    first, second = RedisLock("job", ttl=5), RedisLock("job", ttl=5)

    assert first.acquire()
    assert not second.acquire()
    assert first.release()
    assert second.acquire()
    assert not first.owned()
    assert second.owned()


def test_reentry_by_same_owner_needs_as_many_releases() -> None:
    lock, other = RedisLock("nested", ttl=5), RedisLock("nested", ttl=5)

    assert lock.acquire()
    assert lock.acquire()
    assert lock.release()
    assert lock.locked()
    assert not other.acquire()
    assert lock.release()
    assert not lock.locked()
    assert other.acquire()


def test_threads_never_hold_it_together(redis_client) -> None:
    run_concurrently(lambda _: _hammer(25), workers=8)

    assert int(redis_client.get(ENTRIES)) == 8 * 25
    assert redis_client.get(OVERLAPS) is None


@pytest.mark.slow
def test_processes_never_hold_it_together(redis_client) -> None:
    ctx = multiprocessing.get_context("fork")
    processes = [ctx.Process(target=_hammer, args=(25,)) for _ in range(4)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=120)

    assert [p.exitcode for p in processes] == [0, 0, 0, 0]
    assert int(redis_client.get(ENTRIES)) == 4 * 25
    assert redis_client.get(OVERLAPS) is None


def test_expired_holder_cannot_release_or_renew_the_new_holders_lock(redis_client) -> None:
    old = RedisLock("lease", ttl=0.1)
    new = RedisLock("lease", ttl=30)
    assert old.acquire()

    assert new.acquire(wait=5)  # succeeds only once the old lease has run out

    assert not old.release()
    assert not old.renew()
    assert new.owned()
    assert redis_client.pttl(new.key) > 29_000


def test_lock_frees_itself_when_the_holder_vanishes() -> None:
    abandoned = RedisLock("crash", ttl=0.2)
    assert abandoned.acquire()
    survivor = RedisLock("crash", ttl=5)

    wait_until(survivor.acquire, timeout=5)

    assert survivor.owned()


def test_watchdog_keeps_a_long_holders_lease(redis_client) -> None:
    # A lease long enough that a busy CI machine pausing the renewal thread for a few
    # hundred milliseconds does not look like a lost lease.
    holder = RedisLock("long-job", ttl=1.5, watchdog=True)
    assert holder.acquire()
    deadline = time.monotonic() + 4.5  # three leases long
    while time.monotonic() < deadline:
        assert not RedisLock("long-job", ttl=5).acquire()
        assert redis_client.pttl(holder.key) > 0
        time.sleep(0.05)

    assert holder.owned()
    assert not holder.lost
    assert holder.release()
    assert RedisLock("long-job", ttl=5).acquire()


def _watchdogs(name: str) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == f"lock-watchdog:{name}"]


def test_watchdog_stops_after_release() -> None:
    holder = RedisLock("short-job", ttl=0.3, watchdog=True)
    with holder:
        assert len(_watchdogs("short-job")) == 1

    wait_until(lambda: not _watchdogs("short-job"), timeout=3)


@pytest.mark.parametrize("noticed", [False, True])
def test_reacquiring_after_a_lost_lease_leaves_exactly_one_watchdog(redis_client, noticed) -> None:
    name = f"relost-{noticed}"
    holder = RedisLock(name, ttl=3, watchdog=True)  # renewals every second
    assert holder.acquire()
    first = _watchdogs(name)
    assert len(first) == 1
    redis_client.delete(holder.key)  # the lease is lost (expired, or Redis failed over)
    if noticed:
        wait_until(lambda: holder.lost, timeout=5)  # its watchdog saw it and stopped
    # Otherwise the first watchdog still sleeps: left running, it would renew the new
    # lease too, beside the new one, for as long as the process lives.

    assert holder.acquire()  # same owner, fresh lease, a new watchdog

    wait_until(lambda: not any(thread.is_alive() for thread in first), timeout=3)
    assert len(_watchdogs(name)) == 1
    assert not holder.lost
    assert holder.owned()
    assert holder.release()
    wait_until(lambda: not _watchdogs(name), timeout=5)


def test_try_with_wait_gives_up_after_the_wait() -> None:
    assert RedisLock("busy", ttl=30).acquire()
    waiter = RedisLock("busy", ttl=30)

    started = time.monotonic()
    assert not waiter.acquire(wait=0.3)
    elapsed = time.monotonic() - started

    assert 0.3 <= elapsed < 2


def test_try_with_wait_gets_the_lock_once_it_is_released() -> None:
    holder = RedisLock("handover", ttl=30)
    assert holder.acquire()
    releasing = threading.Event()

    def release_soon() -> None:
        time.sleep(0.2)  # how long the holder keeps the lock, not a synchronisation
        # Set before releasing: once the waiter holds the lock, this must be set,
        # whichever thread the scheduler runs first after the release.
        releasing.set()
        holder.release()

    releaser = threading.Thread(target=release_soon)
    releaser.start()
    waiter = RedisLock("handover", ttl=30)

    assert waiter.acquire(wait=5)
    assert releasing.is_set()
    releaser.join(timeout=5)
    assert waiter.owned()


def test_context_manager_raises_when_busy_and_releases_on_error() -> None:
    with RedisLock("ctx", ttl=30) as held:
        with pytest.raises(LockTimeout):
            RedisLock("ctx", ttl=30, wait=0.05).__enter__()
        assert held.owned()

    lock = RedisLock("ctx", ttl=30)
    with pytest.raises(RuntimeError), lock:
        raise RuntimeError("boom")
    assert not lock.locked()
