"""Global ids: unique across processes, increasing within each, decodable."""

from __future__ import annotations

import itertools
import multiprocessing
from datetime import UTC, datetime

import pytest

from toolkit.redis import ids

PER_PROCESS = 10_000
PROCESSES = 8


def _generate(queue: multiprocessing.Queue) -> None:
    queue.put([ids.next_id("order") for _ in range(PER_PROCESS)])


@pytest.mark.slow
def test_ids_are_unique_and_increasing_across_processes() -> None:
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    processes = [ctx.Process(target=_generate, args=(queue,)) for _ in range(PROCESSES)]
    for process in processes:
        process.start()
    batches = [queue.get(timeout=300) for _ in processes]
    for process in processes:
        process.join(timeout=30)

    everything = [i for batch in batches for i in batch]
    assert len(everything) == PROCESSES * PER_PROCESS
    assert len(set(everything)) == len(everything)
    for batch in batches:
        assert all(a < b for a, b in itertools.pairwise(batch))
    assert all(0 < i < 2**63 for i in everything)


def test_id_encodes_its_time_and_counter(fake_clock) -> None:
    first, second = ids.next_id("order"), ids.next_id("order")

    assert ids.timestamp_of(first) == int(fake_clock.value)
    assert first & 0xFFFFFFFF == 1
    assert ids.parts(first) == (int(fake_clock.value) - ids.ID_EPOCH, 1)
    assert ids.compose(ids.timestamp_of(first), ids.parts(first)[1]) == first
    assert second == first + 1
    assert ids.next_id("blog") & 0xFFFFFFFF == 1  # each prefix counts on its own


def test_counter_restarts_at_midnight_utc_and_ids_keep_rising(fake_clock) -> None:
    fake_clock.value = datetime(2026, 11, 21, 23, 59, 59, tzinfo=UTC).timestamp()
    before = [ids.next_id("order") for _ in range(3)]
    fake_clock.advance(1)
    after = ids.next_id("order")

    assert after & 0xFFFFFFFF == 1
    assert after > max(before)


def test_counter_overflow_is_refused() -> None:
    with pytest.raises(OverflowError):
        ids.compose(ids.ID_EPOCH + 1, 2**32)


def test_the_counter_day_is_the_utc_day_on_either_side_of_midnight() -> None:
    midnight = 1_764_028_800  # 2025-11-25T00:00:00Z
    assert ids.day_of(midnight - 1) == "20251124"
    assert ids.day_of(midnight) == "20251125"
    assert ids.day_of(midnight - 1) == "20251124"  # asked again: the remembered name
    assert ids.day_of(midnight + 86_399) == "20251125"
    assert ids.day_of(midnight + 86_400) == "20251126"
