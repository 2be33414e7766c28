"""The Bloom filter on a plain Redis bitmap."""

from __future__ import annotations

import pytest

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
