"""The notification stream (server-sent events), its ASGI application called in-process
on the real Redis (sharded pub/sub; a Cluster in `make test-cluster`) and the real
database: what an open stream gets, a reconnect that resumes from Last-Event-ID, keep-
alives, who may open one (tokens and tickets), what ends one, the router around it, the
WSGI app's answer for a misrouted request and the gauge of open streams.
tests/notifications/test_stream_server.py runs the real server."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import pytest
from django.db import connections
from redis.cluster import RedisCluster

from accounts import tokens
from dianping.streaming import application
from notifications import keys, live, metrics, services, stream
from notifications.models import Kind, Notification
from notifications.stream import GRACE, Position
from tests.factories import BlogFactory, UserFactory
from tests.helpers import client_for
from tests.sse import AppStream, Event
from toolkit.redis import aio

pytestmark = pytest.mark.django_db(transaction=True)  # the stream reads in threads of its own

T = TypeVar("T")


def run(scenario: Coroutine[Any, Any, T]) -> T:
    """A scenario in an event loop of its own, its connections closed at the end."""

    async def cleanly() -> T:
        try:
            return await scenario
        finally:
            await stream.fanout().close()
            await aio.close()

    return asyncio.run(cleanly())


async def db(work: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Synchronous ORM work, in a thread (as a Celery task or a WSGI request would run it,
    its transaction committed before it returns)."""

    def closing() -> T:
        try:
            return work(*args, **kwargs)
        finally:
            connections.close_all()

    return await asyncio.to_thread(closing)


def notify(recipient, key: str) -> Notification:
    made = services.notification_add(
        recipient_id=recipient.id, kind=Kind.FOLLOWED, key=key, actor_id=UserFactory().id
    )
    assert made is not None
    return made


def bearer(user) -> dict[str, str]:
    return {"Authorization": f"Bearer {tokens.token_issue(user)}"}


async def opened(headers: dict[str, str], query: str = "") -> tuple[AppStream, Event]:
    """A stream that answered 200, and its first event (the unread count)."""
    opened = await AppStream.open(application, headers=headers, query=query)
    assert opened.status == 200, opened.json()
    assert (await opened.next()).retry == stream.RETRY_MS
    return opened, await opened.next_event()


def test_an_open_stream_gets_a_like_s_notification_and_the_unread_count(user, other_user):
    note = BlogFactory(user=user, title="生煎包探店")
    headers = bearer(user)

    async def scenario() -> dict:
        live_stream, start = await opened(headers)
        assert live_stream.headers["content-type"] == "text/event-stream; charset=utf-8"
        assert live_stream.headers["cache-control"] == "no-store"
        assert (start.event, start.json(), start.id) == ("unread", {"unread": 0}, "0")

        liked = await db(client_for(other_user).post, f"/api/blogs/{note.id}/like")
        assert liked.status_code == 200

        item = await live_stream.next_event()
        count = await live_stream.next_event()
        assert item.event == "notification"
        assert count.event == "unread"
        assert count.json() == {"unread": 1}
        assert item.id == count.id == str(item.json()["id"])
        await live_stream.close()
        return item.json()

    item = run(scenario())
    # Each item as the inbox page writes it: the client renders both alike.
    assert item == client_for(user).get("/api/notifications").json()["results"][0]
    assert (item["kind"], item["blog"]["title"], item["read"]) == ("liked", "生煎包探店", False)


def test_a_stream_gets_its_own_users_notifications_and_nobody_elses(user, other_user):
    """Two readers' streams open in one process (one fan-out): the first reader's item
    reaches its stream before the second reader's is made, so a leak would stand first
    on the second stream."""
    mine_headers, theirs_headers = bearer(user), bearer(other_user)

    async def scenario() -> tuple[list[Event], list[Event], int, int]:
        mine, _ = await opened(mine_headers)
        theirs, _ = await opened(theirs_headers)
        for_me = await db(notify, user, "for-me")
        got_mine = [await mine.next_event(), await mine.next_event()]
        for_them = await db(notify, other_user, "for-them")
        got_theirs = [await theirs.next_event(), await theirs.next_event()]
        await mine.close()
        await theirs.close()
        return got_mine, got_theirs, for_me.id, for_them.id

    got_mine, got_theirs, mine_id, theirs_id = run(scenario())
    for got, made in ((got_mine, mine_id), (got_theirs, theirs_id)):
        assert [(e.event, e.id) for e in got] == [
            ("notification", str(made)),
            ("unread", str(made)),
        ]
        assert got[1].json() == {"unread": 1}


def test_a_reconnect_from_last_event_id_misses_nothing_and_repeats_nothing(user):
    headers = bearer(user)
    older = notify(user, "before")  # the client's page shows it already

    async def scenario() -> list[int]:
        seen: list[int] = []
        first, start = await opened(headers)
        assert start.id == str(older.id)  # a fresh start: nothing older is sent
        one = await db(notify, user, "one")
        event = await first.next_event()
        seen.append(event.json()["id"])
        last_id = (await first.next_event()).id  # the count after it carries the same id
        assert last_id == str(one.id)
        await first.close()

        # Disconnected: two more arrive, and the first is read elsewhere.
        two, three = await db(notify, user, "two"), await db(notify, user, "three")
        await db(services.notifications_mark_read, recipient_id=user.id, ids=[one.id])

        again, first_event = await opened({**headers, "Last-Event-ID": last_id})
        caught_up = [first_event, await again.next_event(), await again.next_event()]
        assert [(e.event, e.id) for e in caught_up] == [
            ("notification", str(two.id)),
            ("notification", str(three.id)),
            ("unread", str(three.id)),
        ]
        assert caught_up[2].json() == {"unread": 3}  # older, two, three
        seen += [e.json()["id"] for e in caught_up[:2]]

        four = await db(notify, user, "four")
        live_item, count = await again.next_event(), await again.next_event()
        assert (live_item.id, count.json()) == (str(four.id), {"unread": 4})
        seen.append(live_item.json()["id"])

        # A barrier: the next event is the count after marking all read, so nothing was
        # sent twice in between.
        await db(services.notifications_mark_read, recipient_id=user.id)
        assert (await again.next_event()).json() == {"unread": 0}
        await again.close()
        return seen

    assert run(scenario()) == [
        n.id for n in Notification.objects.filter(recipient=user).order_by("id")[1:]
    ]


def test_pokes_for_what_the_catch_up_already_sent_send_nothing_again(user):
    headers = bearer(user)
    one = notify(user, "one")

    async def scenario() -> None:
        catching_up, item = await opened(headers, query="last_event_id=0")  # the page's way
        assert (item.event, item.json()["id"]) == ("notification", one.id)
        assert (await catching_up.next_event()).json() == {"unread": 1}
        publisher = aio.get_async_redis()
        for _ in range(3):  # as a publish racing the catch-up's read would arrive
            await publisher.spublish(live.channel(user.id), live.POKE)
        two = await db(notify, user, "two")
        # A poke's read may meet two's commit half-way (the count before the rows): the
        # events then come in another order, but one is never sent again.
        sent: list[dict] = []
        counts: list[dict] = []
        while not (sent and counts and counts[-1] == {"unread": 2}):
            event = await catching_up.next_event()
            (sent if event.event == "notification" else counts).append(event.json())
        assert [item["id"] for item in sent] == [two.id]
        await catching_up.close()

    run(scenario())


def test_an_id_that_commits_after_a_higher_one_was_sent_is_sent_once():
    position = Position(10)
    assert [i["id"] for i in position.fresh([{"id": 12}], now=0.0)] == [12]
    # 11 was inserted before 12 but committed after it: still sent, and only once.
    assert [i["id"] for i in position.fresh([{"id": 12}, {"id": 11}], now=1.0)] == [11]
    assert position.fresh([{"id": 12}, {"id": 11}], now=2.0) == []
    assert (position.top, position.floor) == (12, 10)
    position.forget(now=1.0 + GRACE + 0.1)  # both sent long ago: the floor rises past them
    assert (position.floor, position.recent) == (12, {})


def test_a_quiet_stream_gets_keep_alive_comments(user, settings):
    settings.NOTIFICATIONS_STREAM_HEARTBEAT = 0.2
    headers = bearer(user)

    async def scenario() -> None:
        quiet, _ = await opened(headers)
        for _ in range(2):
            assert (await quiet.next(timeout=5)).comment == "keep-alive"
        await quiet.close()

    run(scenario())


@pytest.mark.parametrize(
    ("headers", "query"),
    [
        ({}, ""),
        ({"Authorization": "Bearer not-a-token"}, ""),
        ({"Authorization": "Bearer " + "x" * 43}, ""),  # shaped like one, unknown
        ({}, "ticket=" + "y" * 43),  # no such ticket
    ],
)
def test_a_stream_without_a_live_token_or_ticket_is_401(headers, query):
    async def scenario() -> AppStream:
        refused = await AppStream.open(
            application, headers={**headers, "Accept-Language": "en"}, query=query
        )
        await refused.end()
        return refused

    refused = run(scenario())
    assert refused.status == 401
    assert refused.headers["www-authenticate"] == 'Bearer realm="api"'
    assert refused.json() == {
        "detail": "Authentication credentials were not provided or have expired.",
        "code": "not_authenticated",
    }


def test_a_ticket_opens_one_stream_and_is_spent(user, api, settings):
    settings.NOTIFICATIONS_STREAM_URL = ":8001/api/notifications/stream"
    assert api.post("/api/notifications/stream-ticket").status_code == 401
    answer = client_for(user).post("/api/notifications/stream-ticket")
    assert answer.status_code == 201
    body = answer.json()
    assert (body["url"], body["expires_in"]) == (":8001/api/notifications/stream", 30)
    query = f"ticket={body['ticket']}"

    async def scenario() -> tuple[Event, int]:
        with_ticket, start = await opened({}, query=query)
        again = await AppStream.open(application, query=query)
        await again.end()
        await with_ticket.close()
        return start, again.status

    start, second_status = run(scenario())
    assert start.json() == {"unread": 0}
    assert second_status == 401


def test_a_revoked_token_ends_its_stream_at_the_next_keep_alive(user, settings):
    settings.NOTIFICATIONS_STREAM_HEARTBEAT = 0.2
    token = tokens.token_issue(user)

    async def scenario() -> None:
        ending, _ = await opened({"Authorization": f"Bearer {token}"})
        await db(tokens.token_revoke, token, user.id)
        await ending.end(timeout=5)
        await ending.close()

    run(scenario())


def test_a_lost_subscription_ends_its_streams_so_their_clients_catch_up(user, redis_client):
    headers = bearer(user)

    async def scenario() -> None:
        ending, _ = await opened(headers)
        # Every pub/sub connection on the node of the user's channel is cut (a restart, a
        # failover, a slot moved away all look alike here).
        await db(_kill_pubsub_connections, redis_client, live.channel(user.id))
        await ending.end(timeout=10)
        await ending.close()
        again, _start = await opened(headers)  # a new subscription, on a new connection
        one = await db(notify, user, "one")
        assert (await again.next_event()).json()["id"] == one.id
        await again.close()

    run(scenario())


def _kill_pubsub_connections(client: Any, channel: bytes) -> None:
    if isinstance(client, RedisCluster):
        node = client.get_node_from_key(channel.decode())
        client.execute_command("CLIENT KILL", "TYPE", "pubsub", target_nodes=node)
    else:
        client.execute_command("CLIENT KILL", "TYPE", "pubsub")


def test_last_event_id_must_be_an_id(user):
    headers = {**bearer(user), "Accept-Language": "en"}

    async def scenario() -> AppStream:
        refused = await AppStream.open(application, headers=headers, query="last_event_id=x")
        await refused.end()
        return refused

    refused = run(scenario())
    assert refused.status == 400
    assert refused.json()["errors"] == {
        "last_event_id": ["last_event_id must be a notification id."]
    }


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/api/notifications", 404),  # the WSGI app's
        ("POST", "/api/notifications/stream", 405),
        ("OPTIONS", "/api/notifications/stream", 204),  # a cross-origin preflight
    ],
)
def test_the_stream_process_serves_the_stream_alone(method, path, status):
    async def scenario() -> AppStream:
        answer = await AppStream.open(
            application, method=method, path=path, headers={"Accept-Language": "en"}
        )
        await answer.end()
        return answer

    answer = run(scenario())
    assert answer.status == status
    assert answer.headers["access-control-allow-origin"] == "*"
    if status == 405:
        assert answer.headers["allow"] == "GET, OPTIONS"
        assert answer.json()["code"] == "method_not_allowed"


def test_the_wsgi_app_says_the_stream_is_served_elsewhere(user, api):
    assert api.get("/api/notifications/stream").status_code == 401
    for caller, query in [(client_for(user), ""), (api, "?ticket=" + "t" * 43)]:
        answer = caller.get("/api/notifications/stream" + query, HTTP_ACCEPT_LANGUAGE="en")
        assert answer.status_code == 421
        assert answer.json()["code"] == "stream_elsewhere"


def test_the_gauge_counts_the_streams_each_process_reports(user, other_user, client, settings):
    settings.METRICS_TOKEN = "metrics-token"
    headers, others = bearer(user), bearer(other_user)

    async def scenario() -> None:
        streams = [(await opened(h))[0] for h in (headers, headers, others)]
        assert stream.open_streams() == 3
        reporter = asyncio.create_task(metrics.report_open_streams(stream.open_streams))
        counts = keys.open_streams()
        publisher = aio.get_async_redis()
        async with asyncio.timeout(10):
            while not await publisher.hlen(counts):
                await asyncio.sleep(0.01)  # polls Redis for the report (not a wait for time)
        reporter.cancel()
        for opened_stream in streams:
            await opened_stream.close()

    run(scenario())
    scrape = client.get("/metrics", HTTP_AUTHORIZATION="Bearer metrics-token").content.decode()
    assert "dianping_notification_streams_open 3.0" in scrape
    assert "dianping_notification_stream_processes 1.0" in scrape
