"""The Bloom filter on a plain Redis bitmap, its generations and its fill."""

from __future__ import annotations

import threading

import pytest

from tests.helpers import wait_until
from toolkit.redis import keys
from toolkit.redis.bloom import BloomFilter


@pytest.mark.parametrize("capacity", [1, 1000])
def test_bloom_filter_has_no_false_negatives(capacity) -> None:
    bloom = BloomFilter(keys.bloom("fn"), capacity=capacity)
    bloom.rebuild([])
    members = [f"m{i}" for i in range(capacity)]
    bloom.add(members)

    assert all(bloom.might_contain(m) for m in members)


def test_queue_add_rides_on_the_callers_pipeline(redis_client) -> None:
    bloom = BloomFilter(keys.bloom("queued"), capacity=100)
    bloom.rebuild([])
    pipe = redis_client.pipeline(transaction=False)
    pipe.set("test:bloom:other", 1)

    bloom.queue_add(pipe, ["a", "b"])
    bloom.queue_add(pipe, [])  # nothing to add: nothing queued
    assert not bloom.might_contain("a")  # nothing is sent before the caller's execute
    assert len(pipe) == 2
    pipe.execute()

    assert bloom.might_contain("a")
    assert bloom.might_contain("b")
    assert redis_client.get("test:bloom:other") == b"1"


# --- generations: watched, rebuilt larger, switched without a false "no" (decision 490) ---


def test_stats_estimate_the_fill_and_false_positive_rate(redis_client) -> None:
    bloom = BloomFilter(keys.bloom("stats"), capacity=1000)
    bloom.rebuild([])
    empty = bloom.stats()
    assert (empty.set_bits, empty.estimated_items, empty.false_positive_rate) == (0, 0, 0)

    bloom.add(str(i) for i in range(800))

    stats = bloom.stats()
    assert stats.capacity == 1000
    assert stats.estimated_items == pytest.approx(800, rel=0.05)
    assert stats.fill == pytest.approx(0.8, rel=0.05)
    # What the set bits give, and near the design's rate at this fill (0.001 at 100 %).
    assert stats.false_positive_rate == pytest.approx((stats.set_bits / stats.bits) ** bloom.hashes)
    assert 0.0001 < stats.false_positive_rate < 0.001


def test_a_rebuild_at_a_larger_size_switches_the_pointer_and_drops_the_old_bitmap(
    redis_client,
) -> None:
    base = keys.bloom("grow")
    bloom = BloomFilter(base, capacity=100)
    bloom.rebuild(str(i) for i in range(100))
    old_key = bloom.current().key
    assert redis_client.exists(old_key)

    bloom.rebuild((str(i) for i in range(100)), capacity=1000)

    current = bloom.current()
    assert (current.capacity, current.key) == (1000, keys.bloom_generation(base, 2))
    assert redis_client.hget(keys.bloom_pointer(base), "current") == b"2:1000"
    assert not redis_client.hexists(keys.bloom_pointer(base), "building")
    assert not redis_client.exists(old_key)
    assert bloom.stats().fill == pytest.approx(0.1, rel=0.1)
    other = BloomFilter(base, capacity=100)  # another process, sized by the settings
    assert other.current() == current  # reads the pointer
    assert all(other.might_contain(str(i)) for i in range(100))
    assert sum(other.might_contain(f"x{i}") for i in range(1000)) < 10


def test_writes_during_a_rebuild_land_in_both_bitmaps(redis_client) -> None:
    bloom = BloomFilter(keys.bloom("both"), capacity=100)
    bloom.rebuild(["a"])
    layout = bloom.begin_rebuild(1000)

    bloom.add(["written-meanwhile"])  # after the scan began: the source would miss it
    bloom.fill(layout, ["a"])
    assert bloom.might_contain("written-meanwhile")  # the old bitmap has it
    bloom.switch(layout)

    assert bloom.current().capacity == 1000
    assert bloom.might_contain("written-meanwhile")  # and so does the new one
    assert bloom.might_contain("a")


def test_a_stale_reader_of_a_dropped_bitmap_answers_maybe(redis_client) -> None:
    base = keys.bloom("stale")
    bloom = BloomFilter(base, capacity=100)
    bloom.rebuild(["a"])
    stale = BloomFilter(base, capacity=100, refresh=3600)
    assert not stale.might_contain("b")  # reads generation 1 and keeps it an hour

    bloom.rebuild(["a", "b"], capacity=200)

    assert stale.current().generation == 1  # not read again yet: its bitmap is gone
    assert stale.might_contain("b")  # no sentinel: "maybe", never a false "no"


def test_no_member_is_ever_missing_while_rebuilds_run(redis_client) -> None:
    base = keys.bloom("live")
    members = [f"m{i}" for i in range(2000)]
    builder = BloomFilter(base, capacity=500)
    builder.rebuild(members)
    reader = BloomFilter(base, capacity=500, refresh=0)  # reads the pointer every check
    stop = threading.Event()
    checks: list[int] = []
    missing: list[str] = []

    def read() -> None:
        while not stop.is_set():
            for member in members[::97]:
                if not reader.might_contain(member):
                    missing.append(member)
            checks.append(1)

    thread = threading.Thread(target=read)
    thread.start()
    try:
        for capacity in (1000, 2000, 4000, 8000):
            builder.rebuild(iter(members), capacity=capacity, batch=100)
        wait_until(lambda: len(checks) > 20)
    finally:
        stop.set()
        thread.join(10)
    assert missing == []
    assert reader.current().capacity == 8000
