"""Many local listeners of Redis sharded pub/sub channels (SSUBSCRIBE), over one
connection per Redis node and event loop: an open stream costs a listener here, never a
connection of its own (decision 386).

A channel is subscribed while at least one listener holds it; `subscribe` returns once
Redis confirmed the subscription, so whatever is published after that reaches the
listener (a caller reads the store after it, and misses nothing in between). A message
only pokes its listeners: what it says is read from the store, so pokes coalesce and a
repeat is harmless. A connection that fails, falls silent past `silence` seconds, or
loses a channel to a Cluster slot's move marks the listeners it carried `lost`: they end,
and their clients reconnect and catch up (a resubscription could not tell what they
missed in between).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter, deque
from typing import Any

from redis.asyncio.connection import AbstractConnection

from . import aio

log = logging.getLogger(__name__)

SUBSCRIBE_TIMEOUT = 5.0  # seconds for Redis to confirm a subscription


class Listener:
    """One reader of one channel: `wait` returns once poked, lost or closed."""

    __slots__ = ("_event", "channel", "closed", "lost", "poked")

    def __init__(self, channel: bytes) -> None:
        self.channel = channel
        self._event = asyncio.Event()
        self.poked = self.lost = self.closed = False

    def poke(self) -> None:
        self.poked = True
        self._event.set()

    def lose(self) -> None:
        self.lost = True
        self._event.set()

    def close(self) -> None:
        """The reader has gone (its client disconnected): end any wait at once."""
        self.closed = True
        self._event.set()

    async def wait(self, timeout: float) -> bool:
        """Wait until something happens (True) or `timeout` seconds pass (False). The
        signal is used up, so several signals that came meanwhile wake the reader once."""
        if not self._event.is_set():
            try:
                async with asyncio.timeout(timeout):
                    await self._event.wait()
            except TimeoutError:
                return False
        self._event.clear()
        if self.lost or self.closed:
            self._event.set()  # stays set: every later wait returns at once
        self.poked = False
        return True


class _Link:
    """One connection in subscribed mode to one node, and the channels it carries."""

    def __init__(self, hub: Fanout, name: str, connection: AbstractConnection) -> None:
        self.hub, self.name, self.connection = hub, name, connection
        self.channels: set[bytes] = set()
        self.confirming: dict[bytes, deque[asyncio.Future[None]]] = {}
        self.leaving: Counter[bytes] = Counter()
        self.write_lock = asyncio.Lock()
        self.reader: asyncio.Task[None] | None = None
        self.pinger: asyncio.Task[None] | None = None
        self.failed = False

    async def start(self) -> None:
        await self.connection.connect()
        self.reader = asyncio.create_task(self._read())
        self.pinger = asyncio.create_task(self._ping())

    async def send(self, *args: Any) -> None:
        async with self.write_lock:
            await self.connection.send_command(*args)

    async def subscribe(self, channel: bytes) -> asyncio.Future[None]:
        confirmed = asyncio.get_running_loop().create_future()
        self.confirming.setdefault(channel, deque()).append(confirmed)
        self.channels.add(channel)
        await self.send("SSUBSCRIBE", channel)
        return confirmed

    async def unsubscribe(self, channel: bytes) -> None:
        self.channels.discard(channel)
        self.leaving[channel] += 1
        await self.send("SUNSUBSCRIBE", channel)

    async def _read(self) -> None:
        try:
            while True:
                reply = await self.connection.read_response(timeout=self.hub.silence)
                if reply is None:  # nothing, not even a pong, for `silence` seconds
                    raise TimeoutError(f"silent for {self.hub.silence} s")
                kind, channel = reply[0], reply[1]
                if kind == b"smessage":
                    self.hub.deliver(channel)
                elif kind == b"ssubscribe":
                    waiting = self.confirming.get(channel)
                    if waiting:
                        confirmed = waiting.popleft()
                        if not confirmed.done():
                            confirmed.set_result(None)
                        if not waiting:
                            del self.confirming[channel]
                elif kind == b"sunsubscribe":
                    if self.leaving[channel] > 0:
                        self.leaving[channel] -= 1
                        if not self.leaving[channel]:
                            del self.leaving[channel]
                    else:  # Redis dropped it: its slot moved to another node
                        self.hub.lose_channel(self, channel)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # closed, silent past `silence`, an error reply
            self.hub.link_failed(self, error)

    async def _ping(self) -> None:
        """A PING every third of `silence`: its pong keeps a quiet connection's reads
        inside the limit, and a dead peer is noticed within `silence`."""
        try:
            while True:
                await asyncio.sleep(self.hub.silence / 3)
                await self.send("PING")
        except asyncio.CancelledError:
            raise
        except Exception as error:
            self.hub.link_failed(self, error)

    async def close(self) -> None:
        self.failed = True
        for task in (self.reader, self.pinger):
            if task is not None and task is not asyncio.current_task():
                task.cancel()
        for waiting in self.confirming.values():
            for confirmed in waiting:
                if not confirmed.done():
                    confirmed.set_exception(ConnectionError("subscription lost"))
        self.confirming.clear()
        with contextlib.suppress(Exception):  # already gone
            await self.connection.disconnect()


class Fanout:
    """The listeners of one event loop, by channel, and its connections, by node."""

    def __init__(self, *, silence: float) -> None:
        self.silence = silence
        self.listeners: dict[bytes, set[Listener]] = {}
        self.ready: dict[bytes, asyncio.Future[None]] = {}
        self.links: dict[str, _Link] = {}
        self.routes: dict[bytes, _Link] = {}
        self._connecting: dict[str, asyncio.Future[_Link]] = {}
        self._closing: set[asyncio.Task[None]] = set()

    def count(self) -> int:
        return sum(len(group) for group in self.listeners.values())

    async def subscribe(self, channel: bytes) -> Listener:
        """A listener of `channel`, once Redis confirmed the subscription (ConnectionError
        or TimeoutError if it could not)."""
        listener = Listener(channel)
        group = self.listeners.get(channel)
        if group is None:
            group = self.listeners[channel] = set()
            self.ready[channel] = asyncio.ensure_future(self._subscribe(channel))
        group.add(listener)
        try:
            await asyncio.wait_for(asyncio.shield(self.ready[channel]), SUBSCRIBE_TIMEOUT)
        except BaseException:
            self.unsubscribe(listener)
            raise
        return listener

    async def _subscribe(self, channel: bytes) -> None:
        link = await self._link(channel)
        self.routes[channel] = link
        confirmed = await link.subscribe(channel)
        await confirmed

    async def _link(self, channel: bytes) -> _Link:
        name, connect = await aio.node_for(channel)
        link = self.links.get(name)
        if link is not None and not link.failed:
            return link
        pending = self._connecting.get(name)
        if pending is None:  # one connection per node, however many ask at once
            pending = self._connecting[name] = asyncio.ensure_future(self._open(name, connect()))
        try:
            return await asyncio.shield(pending)
        finally:
            if pending.done():
                self._connecting.pop(name, None)

    async def _open(self, name: str, connection: AbstractConnection) -> _Link:
        link = _Link(self, name, connection)
        await link.start()
        self.links[name] = link
        return link

    def unsubscribe(self, listener: Listener) -> None:
        """The listener is done; the channel's last one unsubscribes it (in the background:
        its reader need not wait)."""
        listener.close()
        group = self.listeners.get(listener.channel)
        if group is None or listener not in group:
            return
        group.discard(listener)
        if group:
            return
        channel = listener.channel
        del self.listeners[channel]
        self._background(self._unsubscribe(channel, self.ready.pop(channel, None)))

    async def _unsubscribe(self, channel: bytes, ready: asyncio.Future[None] | None) -> None:
        if ready is not None:
            try:
                await ready  # a subscription still on its way is made (and answered) first
            except Exception:
                return
        if channel in self.listeners:
            return  # subscribed again meanwhile, after ours: it must stay
        link = self.routes.pop(channel, None)
        if link is None or link.failed:
            return
        try:
            await link.unsubscribe(channel)
        except Exception as error:
            self.link_failed(link, error)

    def deliver(self, channel: bytes) -> None:
        for listener in self.listeners.get(channel, ()):
            listener.poke()

    def lose_channel(self, link: _Link, channel: bytes) -> None:
        link.channels.discard(channel)
        if self.routes.get(channel) is link:
            del self.routes[channel]
            self.ready.pop(channel, None)
            for listener in self.listeners.pop(channel, ()):
                listener.lose()
            self._background(aio.refresh_slots())

    def link_failed(self, link: _Link, error: BaseException) -> None:
        """Every listener this connection carried is lost; the next subscription opens a
        new one, on the slot map read again."""
        if link.failed:
            return
        log.warning("notification fan-out: connection to %s lost (%r)", link.name, error)
        if self.links.get(link.name) is link:
            del self.links[link.name]
        for channel in [c for c, routed in self.routes.items() if routed is link]:
            del self.routes[channel]
            self.ready.pop(channel, None)
            for listener in self.listeners.pop(channel, ()):
                listener.lose()
        self._background(link.close())
        self._background(aio.refresh_slots())

    def _background(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self._closing.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._closing.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("notification fan-out: %r", task.exception())

    async def close(self) -> None:
        """Every listener lost and every connection closed (the loop is ending)."""
        for group in self.listeners.values():
            for listener in group:
                listener.lose()
        self.listeners.clear()
        self.ready.clear()
        self.routes.clear()
        links, self.links = list(self.links.values()), {}
        for link in links:
            link.failed = True  # what is still on its way to it stops there
        pending, self._closing = list(self._closing), set()
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        for link in links:
            await link.close()
