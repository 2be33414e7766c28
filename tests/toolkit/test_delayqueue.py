"""The delay queue: due jobs go to exactly one worker; a dead worker's jobs come back."""

from __future__ import annotations

import itertools

from tests.helpers import command_calls, reset_command_stats, run_concurrently
from toolkit.redis.delayqueue import DelayQueue


def _members(claims) -> list[str]:
    return [claim.member for claim in claims]


def test_jobs_are_not_handed_out_before_they_are_due(fake_clock) -> None:
    queue = DelayQueue("orders")
    queue.schedule("early", delay=10)
    queue.schedule("late", delay=60)

    assert queue.claim() == []
    fake_clock.advance(10)
    assert _members(queue.claim()) == ["early"]
    fake_clock.advance(50)
    assert _members(queue.claim()) == ["late"]


def test_each_due_job_goes_to_exactly_one_of_many_workers(fake_clock) -> None:
    queue = DelayQueue("orders", lease=600)
    for i in range(2000):
        queue.schedule(f"order-{i}", delay=1)
    fake_clock.advance(1)

    def worker(_: int) -> list[str]:
        mine = []
        while batch := queue.claim(limit=25):
            mine += _members(batch)
        return mine

    batches = run_concurrently(worker, workers=8)

    everything = list(itertools.chain.from_iterable(batches))
    assert len(everything) == 2000
    assert len(set(everything)) == 2000


def test_a_job_whose_worker_died_is_handed_out_again(fake_clock) -> None:
    queue = DelayQueue("orders", lease=30)
    queue.schedule("o1", delay=0)
    assert _members(queue.claim()) == ["o1"]  # this worker dies without acking

    fake_clock.advance(29)
    assert queue.claim() == []  # still leased
    fake_clock.advance(1)
    (second,) = queue.claim()
    assert second.member == "o1"
    assert queue.ack(second)
    fake_clock.advance(60)
    assert queue.claim() == []
    assert queue.pending() == 0


def test_a_late_ack_cannot_finish_a_job_another_worker_now_holds(fake_clock) -> None:
    queue = DelayQueue("orders", lease=30)
    queue.schedule("o2", delay=0)
    (first,) = queue.claim()
    fake_clock.advance(31)
    (second,) = queue.claim()  # the first worker was too slow; another took over

    assert not queue.ack(first)  # must not remove the second worker's lease
    assert queue.pending() == 1
    assert queue.ack(second)
    assert queue.pending() == 0


def test_rescheduling_a_leased_job_ends_the_lease(fake_clock) -> None:
    queue = DelayQueue("orders", lease=600)
    queue.schedule("o3", delay=0)
    (claim,) = queue.claim()

    queue.schedule("o3", delay=5)

    assert not queue.ack(claim)
    fake_clock.advance(5)
    assert _members(queue.claim()) == ["o3"]


def test_many_jobs_are_scheduled_in_two_commands_ending_their_leases(
    fake_clock, redis_client
) -> None:
    queue = DelayQueue("orders", lease=600)
    queue.schedule("leased", delay=0)
    (claim,) = queue.claim()
    reset_command_stats(redis_client)

    queue.schedule_many(["leased", "a", "b"], delay=5)
    queue.schedule_many([], delay=5)  # nothing to schedule: nothing sent

    assert command_calls(redis_client) == {"multi": 1, "zrem": 1, "zadd": 1, "exec": 1}

    assert not queue.ack(claim)  # rescheduling ended its lease
    assert queue.claim() == []
    fake_clock.advance(5)
    assert sorted(_members(queue.claim())) == ["a", "b", "leased"]


def test_cancel_withdraws_queued_and_leased_jobs(fake_clock) -> None:
    queue = DelayQueue("orders")
    queue.schedule("paid-in-time", delay=900)
    queue.schedule("leased", delay=0)
    queue.claim()

    assert queue.cancel("paid-in-time")
    assert queue.cancel("leased")
    assert not queue.cancel("unknown")
    fake_clock.advance(1000)
    assert queue.claim() == []
