"""The ASGI application of the stream process (dianping/stream_asgi.py): one path, the
notification stream (notifications.stream), and nothing else; every other path is the
WSGI app's, and answers 404 here.

Not Django's ASGI handler, which runs each request's sync middleware and signal receivers
on a thread that lives as long as the request: a thread per open stream (304 threads
for 300 streams, measured; decision 384). Answers carry `Access-Control-Allow-Origin: *`:
the stream's credential is a ticket or a bearer token the caller sends, never a cookie a
browser adds, so another origin may read only a stream it could open anyway (`make
run` serves it on a port of its own, another origin; decision 388).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import orjson
from django.utils import translation
from django.utils.translation import gettext

from notifications import metrics, stream
from toolkit.errors import Code

log = logging.getLogger(__name__)

_CORS = [
    (b"access-control-allow-origin", b"*"),
    (b"access-control-allow-headers", b"authorization, last-event-id"),
    (b"access-control-allow-methods", b"GET, OPTIONS"),
    (b"access-control-max-age", b"600"),
]
_reporters: set[asyncio.Task[None]] = set()


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        await _lifespan(receive, send)
        return
    if scope["type"] != "http":  # granian runs it with --no-ws
        return

    async def send_with_cors(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", ()), *_CORS]}
        await send(message)

    headers = {name.lower(): value for name, value in scope["headers"]}
    if scope["path"] == stream.PATH and scope["method"] == "GET":
        await stream.stream(scope, receive, send_with_cors)
        return
    with translation.override(stream.language(headers)):
        await _other(scope, send_with_cors)


async def _other(scope: dict[str, Any], send: Any) -> None:
    """Anything but the stream's GET: 404 elsewhere, a preflight, or 405."""
    if scope["path"] != stream.PATH:
        await _answer(send, 404, {"detail": gettext("Not found."), "code": Code.NOT_FOUND})
    elif scope["method"] == "OPTIONS":  # a preflight (a cross-origin Last-Event-ID)
        await _answer(send, 204, None)
    else:
        detail = gettext('Method "%(method)s" not allowed.') % {"method": scope["method"]}
        await _answer(
            send,
            405,
            {"detail": detail, "code": Code.METHOD_NOT_ALLOWED},
            [(b"allow", b"GET, OPTIONS")],
        )


async def _answer(
    send: Any, status: int, body: dict[str, str] | None, headers: list | None = None
) -> None:
    content = b"" if body is None else orjson.dumps(body)
    kind = [(b"content-type", b"application/json")] if body is not None else []
    await send(
        {"type": "http.response.start", "status": status, "headers": [*kind, *(headers or [])]}
    )
    await send({"type": "http.response.body", "body": content})


async def _lifespan(receive: Any, send: Any) -> None:
    """Startup: the report of open streams (notifications.metrics) begins. Shutdown:
    the fan-out's connections close (granian gets there once its streams are gone)."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            task = asyncio.create_task(metrics.report_open_streams(stream.open_streams))
            _reporters.add(task)
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            for task in _reporters:
                task.cancel()
            _reporters.clear()
            await stream.fanout().close()
            await send({"type": "lifespan.shutdown.complete"})
            return
