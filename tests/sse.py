"""Server-sent events for the tests and bench/stream.py: a parser, and two clients in the
caller's event loop: `AppStream` calls the stream's ASGI application in-process, `HttpStream`
reads a real server over a socket (HTTP/1.1, chunked). No sleeps: every read waits for
what it expects, with a timeout."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

PATH = "/api/notifications/stream"


@dataclass
class Event:
    event: str | None = None
    id: str | None = None
    data: str | None = None
    comment: str | None = None
    retry: int | None = None

    def json(self) -> Any:
        assert self.data is not None, self
        return json.loads(self.data)


class Parser:
    """Bytes in, whole events (and comment lines) out, as EventSource splits them."""

    def __init__(self) -> None:
        self.buffer = b""

    def feed(self, chunk: bytes) -> list[Event]:
        self.buffer += chunk
        events = []
        while b"\n\n" in self.buffer:
            block, self.buffer = self.buffer.split(b"\n\n", 1)
            event = Event()
            for line in block.decode().split("\n"):
                field, _, value = line.partition(":")
                value = value.removeprefix(" ")
                if field == "":
                    event.comment = value
                elif field == "data":
                    event.data = value if event.data is None else f"{event.data}\n{value}"
                elif field == "retry":
                    event.retry = int(value)
                elif field in ("event", "id"):
                    setattr(event, field, value)
            events.append(event)
        return events


class _Reader:
    """The events of one response, in order; `ended` once its body is complete."""

    def __init__(self) -> None:
        self.parser = Parser()
        self.events: asyncio.Queue[Event | None] = asyncio.Queue()
        self.ended = False

    def body(self, chunk: bytes, more: bool) -> None:
        for event in self.parser.feed(chunk):
            self.events.put_nowait(event)
        if not more:
            self.ended = True
            self.events.put_nowait(None)

    async def next(self, timeout: float = 10) -> Event:
        """The next event or comment (AssertionError if the stream ended first)."""
        async with asyncio.timeout(timeout):
            event = await self.events.get()
        if event is None:
            self.events.put_nowait(None)
            raise AssertionError("the stream ended")
        return event

    async def next_event(self, timeout: float = 10) -> Event:
        """The next event, past keep-alive comments and the `retry` line."""
        while True:
            event = await self.next(timeout)
            if event.event is not None:
                return event

    async def end(self, timeout: float = 10) -> list[Event]:
        """What came until the stream ended (TimeoutError if it does not)."""
        rest = []
        async with asyncio.timeout(timeout):
            while (event := await self.events.get()) is not None:
                rest.append(event)
        self.events.put_nowait(None)
        return rest


class AppStream(_Reader):
    """A request to an ASGI application, called in this loop."""

    def __init__(self) -> None:
        super().__init__()
        self.status = 0
        self.headers: dict[str, str] = {}
        self.task: asyncio.Task[None] | None = None
        self._asked = False
        self._gone = asyncio.Event()
        self._started = asyncio.Event()
        self._body: list[bytes] = []

    @classmethod
    async def open(
        cls,
        app: Callable[..., Coroutine[Any, Any, None]],
        *,
        path: str = PATH,
        query: str = "",
        headers: dict[str, str] | None = None,
        method: str = "GET",
    ) -> AppStream:
        stream = cls()
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": query.encode(),
            "root_path": "",
            "headers": [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()],
            "client": ("127.0.0.1", 50000),
            "server": ("127.0.0.1", 8001),
        }
        task = stream.task = asyncio.create_task(app(scope, stream._receive, stream._send))
        started = asyncio.create_task(stream._started.wait())
        done, _ = await asyncio.wait({started, task}, timeout=10, return_when="FIRST_COMPLETED")
        if task in done:
            task.result()  # raises what the application raised
        assert stream._started.is_set(), "no answer started"
        return stream

    async def _receive(self) -> dict[str, Any]:
        if not self._asked:
            self._asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await self._gone.wait()
        return {"type": "http.disconnect"}

    async def _send(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            self.headers = {k.decode(): v.decode() for k, v in message.get("headers", [])}
            self._started.set()
        elif message["type"] == "http.response.body":
            self._body.append(message.get("body", b""))
            self.body(message.get("body", b""), message.get("more_body", False))

    def json(self) -> Any:
        return json.loads(b"".join(self._body))

    async def close(self) -> None:
        """The client goes; the application must then end."""
        self._gone.set()
        assert self.task is not None
        async with asyncio.timeout(10):
            await self.task


class HttpStream(_Reader):
    """A GET over a socket of its own, read as it comes."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        super().__init__()
        self.reader, self.writer = reader, writer
        self.status = 0
        self.headers: dict[str, str] = {}
        self.task: asyncio.Task[None] | None = None

    @classmethod
    async def open(
        cls, host: str, port: int, *, path: str = PATH, headers: dict[str, str] | None = None
    ) -> HttpStream:
        stream = cls(*await asyncio.open_connection(host, port))
        lines = [f"GET {path} HTTP/1.1", f"Host: {host}:{port}", "Accept: text/event-stream"]
        lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
        stream.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = await stream.reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        stream.status = int(status_line.split()[1])
        for line in filter(None, header_lines):
            name, _, value = line.partition(":")
            stream.headers[name.strip().lower()] = value.strip()
        stream.task = asyncio.create_task(stream._read_body())
        return stream

    async def _read_body(self) -> None:
        try:
            if self.headers.get("transfer-encoding") != "chunked":
                length = int(self.headers.get("content-length", "0"))
                self.body(await self.reader.readexactly(length), False)
                return
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).strip(), 16)
                chunk = await self.reader.readexactly(size + 2)
                if size == 0:
                    self.body(b"", False)
                    return
                self.body(chunk[:-2], True)
        except (asyncio.IncompleteReadError, ConnectionError):
            self.body(b"", False)

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
        self.writer.close()
        with contextlib.suppress(ConnectionError):
            await self.writer.wait_closed()
