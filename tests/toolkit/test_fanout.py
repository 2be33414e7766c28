"""The sharded pub/sub fan-out (toolkit.redis.fanout) on the real Redis (a Cluster in
`make test-cluster`): many listeners over one connection per node, a subscription that
is confirmed before `subscribe` returns, and one given back and taken again at once."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

from toolkit.redis import aio
from toolkit.redis.fanout import Fanout

T = TypeVar("T")


def run(scenario: Coroutine[Any, Any, T]) -> T:
    async def cleanly() -> T:
        try:
            return await scenario
        finally:
            await aio.close()

    return asyncio.run(cleanly())


async def publish(channel: bytes) -> int:
    """SPUBLISH once; how many connections Redis delivered it to."""
    return await aio.get_async_redis().spublish(channel, b"1")


def test_many_listeners_share_one_connection_per_node_and_each_is_poked():
    async def scenario() -> None:
        fanout = Fanout(silence=30)
        channels = [f"test:fanout:{{{i}}}".encode() for i in range(30)]  # spread over slots
        listeners = [await fanout.subscribe(c) for c in channels for _ in range(2)]
        assert fanout.count() == 60
        assert len(fanout.links) <= 3  # a node each (one on a single Redis)
        for channel in channels:
            assert await publish(channel) == 1  # one connection, whatever its listeners
        assert all([await listener.wait(5) for listener in listeners])
        for listener in listeners:
            fanout.unsubscribe(listener)
        assert fanout.count() == 0
        await fanout.close()

    run(scenario())


def test_a_channel_given_back_and_taken_again_at_once_stays_subscribed():
    async def scenario() -> None:
        fanout = Fanout(silence=30)
        channel = b"test:fanout:{again}"
        first = await fanout.subscribe(channel)
        # Its client goes while a subscription of the channel is still on its way (held
        # back here), and another client of the same user comes right then: the first
        # one's SUNSUBSCRIBE, sent once that subscription is answered, must not undo the
        # second's.
        on_its_way = asyncio.get_running_loop().create_future()
        fanout.ready[channel] = on_its_way
        fanout.unsubscribe(first)
        second = await fanout.subscribe(channel)
        on_its_way.set_result(None)
        await settled(fanout, channel)
        assert await publish(channel) == 1
        assert await second.wait(5)

        # Given back once confirmed and taken again before anything else runs.
        fanout.unsubscribe(second)
        third = await fanout.subscribe(channel)
        await settled(fanout, channel)
        assert await publish(channel) == 1
        assert await third.wait(5)
        await fanout.close()

    run(scenario())


def test_a_client_that_goes_before_its_subscription_is_confirmed_leaves_none_behind():
    async def scenario() -> None:
        fanout = Fanout(silence=30)
        channel = b"test:fanout:{gone}"
        first = asyncio.create_task(fanout.subscribe(channel))
        await asyncio.sleep(0)  # it asks for the channel
        first.cancel()
        await asyncio.wait([first])
        assert channel not in fanout.listeners
        await settled(fanout, channel)
        assert await publish(channel) == 0
        assert fanout.routes == {}
        await fanout.close()

    run(scenario())


async def settled(fanout: Fanout, channel: bytes) -> None:
    """Until Redis answered everything sent for `channel` so far: a subscription of its
    slot, on the same connection, is answered after it."""
    barrier = await fanout.subscribe(channel + b":barrier")
    fanout.unsubscribe(barrier)


def test_a_listener_of_a_lost_connection_is_lost(redis_client):
    async def scenario() -> None:
        fanout = Fanout(silence=30)
        listener = await fanout.subscribe(b"test:fanout:lost")
        link = next(iter(fanout.links.values()))
        await link.connection.disconnect()  # as a Redis restart would cut it
        assert await listener.wait(5)
        assert listener.lost
        assert fanout.count() == 0
        again = await fanout.subscribe(b"test:fanout:lost")  # on a new connection
        assert await publish(b"test:fanout:lost") == 1
        assert await again.wait(5)
        await fanout.close()

    run(scenario())
