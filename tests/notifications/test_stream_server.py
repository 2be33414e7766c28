"""The notification stream's own process as production runs it (scripts/stream.sh:
granian, ASGI, production settings) on the test database and Redis: many open streams
each get their user's notifications once, while the process holds a handful of threads,
not one per stream; a SIGTERM stops it within STREAM_STOP_SECONDS however many streams
are open. bench/stream.py opens 1,000 and measures the memory of each."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connections

from accounts import tokens
from notifications import services
from notifications.models import Kind, Notification
from tests.factories import UserFactory
from tests.servers import production_env, start_stream
from tests.sse import HttpStream
from tests.workers import current_database_url

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

STREAMS = 200
STOP_SECONDS = 1


@pytest.fixture
def stream_server(tmp_path: Path) -> Iterator[tuple[subprocess.Popen, int]]:
    env = production_env(
        current_database_url(),
        tmp_path,
        NOTIFICATIONS_STREAM_HEARTBEAT="2",
        STREAM_STOP_SECONDS=str(STOP_SECONDS),
    )
    process, port = start_stream(env, tmp_path / "stream.log")
    yield process, port
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=60)


def worker_threads(process: subprocess.Popen) -> int:
    """Threads of granian's worker process (the main process's only child)."""
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
    assert len(children) == 1, children
    return len(os.listdir(f"/proc/{children[0]}/task"))


def notify_each(users: list, key: str) -> dict[int, int]:
    """One notification per user, in one batch as a beat job writes them; user id -> its id."""
    try:
        services.notifications_add_many(
            [
                Notification(recipient_id=u.id, kind=Kind.COUPON_EXPIRING, dedup_key=key)
                for u in users
            ]
        )
        return dict(Notification.objects.filter(dedup_key=key).values_list("recipient_id", "id"))
    finally:
        connections.close_all()  # a thread of the test's event loop


def test_many_open_streams_each_get_their_notifications_once_on_a_few_threads(stream_server):
    process, port = stream_server
    users = UserFactory.create_batch(STREAMS)
    bearer = {u.id: t for u, t in zip(users, tokens.tokens_issue(users), strict=True)}
    threads_before = worker_threads(process)

    async def scenario() -> int:
        streams = await asyncio.gather(
            *(
                HttpStream.open("127.0.0.1", port, headers={"Authorization": f"Bearer {bearer[u]}"})
                for u in bearer
            )
        )
        assert {s.status for s in streams} == {200}
        starts = await asyncio.gather(*(s.next_event(timeout=30) for s in streams))
        assert {(e.event, e.data) for e in starts} == {("unread", '{"unread":0}')}
        threads_open = worker_threads(process)

        for key, unread in (("first", 1), ("second", 2)):  # the second shows no repeat
            made = await asyncio.to_thread(notify_each, users, key)
            for user, opened in zip(users, streams, strict=True):
                item, count = await opened.next_event(timeout=30), await opened.next_event(30)
                assert (item.event, item.json()["id"]) == ("notification", made[user.id])
                assert (count.event, count.json()) == ("unread", {"unread": unread})
        await asyncio.gather(*(s.close() for s in streams))
        return threads_open

    threads_open = asyncio.run(scenario())
    # A thread per stream would be 200 more; the database readers are 4 at most.
    assert threads_open <= threads_before + 4, (threads_before, threads_open)


def test_a_sigterm_stops_the_server_with_streams_open(stream_server, user):
    process, port = stream_server
    token = tokens.token_issue(user)

    async def scenario() -> float:
        streams = [
            await HttpStream.open("127.0.0.1", port, headers={"Authorization": f"Bearer {token}"})
            for _ in range(20)
        ]
        for opened in streams:
            await opened.next_event()
        started = time.monotonic()
        os.killpg(process.pid, signal.SIGTERM)
        await asyncio.to_thread(process.wait, 30)
        for opened in streams:  # each client sees its stream end, and would reconnect
            await opened.end(timeout=10)
            await opened.close()
        return time.monotonic() - started

    took = asyncio.run(scenario())
    assert process.returncode == 0
    assert took < STOP_SECONDS + 10, took
