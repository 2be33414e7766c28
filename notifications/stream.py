"""GET /api/notifications/stream: the caller's unread count and new notifications as
server-sent events, served by an ASGI process of its own (dianping/stream_asgi.py,
scripts/stream.sh), never by the WSGI workers: an open stream holds a coroutine and a
fan-out listener, no thread (decision 384). docs/operations.md "Notification stream".

    retry: 3000                          first: how long a browser waits to reconnect
    id: 41                               on every event: the stream's position, the newest
    event: unread                        notification id it has accounted for
    data: {"unread": 2}                  at the start, and whenever the count changed
    id: 42
    event: notification                  each new notification, oldest first, as
    data: {"id": 42, "kind": "liked", …} GET /api/notifications writes its items
    : keep-alive                         every NOTIFICATIONS_STREAM_HEARTBEAT seconds

The caller is a login token: an `Authorization: Bearer` header, or a `ticket` from
POST /api/notifications/stream-ticket (an EventSource cannot send headers; decision 387).
A reconnect resumes from `Last-Event-ID` (or `?last_event_id=`, for a client that opens
a new stream itself): the stream subscribes first, then reads what is newer than that id
from the database, then sends what each poke finds, never an id twice (decision 386).
A read that meets a commit half-way may send the count a notification ahead of its item
(or behind): that commit's own poke follows, and its read sends both as they are.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
import weakref
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import parse_qs

import orjson
from django.conf import settings
from django.db import close_old_connections
from django.utils import translation
from django.utils.translation import gettext
from redis.exceptions import RedisError

from accounts import keys, tokens
from toolkit.api.exceptions import domain_error_headers
from toolkit.api.times import time_writer
from toolkit.errors import Code, DomainError, InvalidInput, NotAuthenticated, ServiceUnavailable
from toolkit.redis.aio import bounded, get_async_redis
from toolkit.redis.fanout import Fanout, Listener

from . import live, selectors
from .tickets import ticket_redeem
from .views import inbox_item

log = logging.getLogger(__name__)

PATH = "/api/notifications/stream"
RETRY_MS = 3000  # a browser's wait before it reconnects on its own
# A notification's id is taken when its row is inserted, so one may commit just after a
# higher one was sent: a stream remembers the ids it sent this long, and takes those it
# has not sent below the highest (decision 386).
GRACE = 30.0  # seconds
_MAX_ID = 2**63 - 1

Send = Callable[[dict[str, Any]], Awaitable[None]]
Receive = Callable[[], Awaitable[dict[str, Any]]]

_fanouts: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Fanout] = weakref.WeakKeyDictionary()


def fanout() -> Fanout:
    """This event loop's fan-out of the users' channels (one per worker process)."""
    loop = asyncio.get_running_loop()
    hub = _fanouts.get(loop)
    if hub is None:
        # A connection silent for three heartbeats is dead (it pings every heartbeat).
        hub = _fanouts[loop] = Fanout(silence=3 * settings.NOTIFICATIONS_STREAM_HEARTBEAT)
    return hub


def open_streams() -> int:
    """How many streams this process holds open now (every loop's)."""
    return sum(hub.count() for hub in list(_fanouts.values()))


@functools.cache
def _database() -> ThreadPoolExecutor:
    """The threads that read the database for every stream of this process: a read holds
    one for a query's time, never for a stream's."""
    return ThreadPoolExecutor(settings.NOTIFICATIONS_STREAM_DB_THREADS, "stream-db")


def _with_connection(read: Callable[[], Any]) -> Any:
    """`read` as a request would run it: a connection past CONN_MAX_AGE or broken is
    replaced before and closed after, as Django does around each request."""
    close_old_connections()
    try:
        return read()
    finally:
        close_old_connections()


async def _in_database(read: Callable[[], Any]) -> Any:
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_database(), _with_connection, read)


def _since(user_id: int, floor: int | None) -> tuple[list[dict[str, Any]], int, int]:
    """(items newer than `floor`, newest first; the unread count; the newest id) in one
    database visit; with no floor, no items and the newest id to start from."""
    if floor is None:
        rows: list[tuple] = []
        newest = selectors.newest_id(recipient_id=user_id)
    else:
        rows = selectors.inbox_since(recipient_id=user_id, after=floor)
        newest = rows[0][0] if rows else floor
    unread = selectors.unread_count(recipient_id=user_id)
    time_ = time_writer()
    return [inbox_item(row, time_) for row in rows], unread, newest


class Position:
    """What a stream has sent: every id at or below `floor` is accounted for, and the
    ids above it it sent in the last GRACE seconds are remembered in `recent`; `top` is
    the highest id accounted for, the `id:` of every event."""

    __slots__ = ("floor", "recent", "top")

    def __init__(self, floor: int) -> None:
        self.floor = self.top = floor
        self.recent: dict[int, float] = {}

    def fresh(self, items: list[dict[str, Any]], now: float) -> list[dict[str, Any]]:
        """Of `items` (newer than `floor`), those not sent yet, oldest first; they count
        as sent from here on."""
        new = [item for item in reversed(items) if item["id"] not in self.recent]
        for item in new:
            self.recent[item["id"]] = now
            self.top = max(self.top, item["id"])
        return new

    def forget(self, now: float) -> None:
        """Ids sent over GRACE seconds ago leave `recent`; the floor rises to the highest."""
        old = [id_ for id_, sent in self.recent.items() if now - sent > GRACE]
        for id_ in old:
            del self.recent[id_]
        if old:
            self.floor = max(self.floor, *old)


def _event(kind: str, position: int, data: Any) -> bytes:
    return b"id: %d\nevent: %s\ndata: %s\n\n" % (position, kind.encode(), orjson.dumps(data))


_HEARTBEAT_LINE = b": keep-alive\n\n"


async def stream(scope: dict[str, Any], receive: Receive, send: Send) -> None:
    """The ASGI application of the stream's path (GET)."""
    headers = {name.lower(): value for name, value in scope["headers"]}
    with translation.override(language(headers)):
        try:
            query = parse_qs(scope["query_string"].decode("latin-1"))
            resume = _resume_from(headers, query)
            token, viewer = await _caller(headers, query)
        except DomainError as error:
            await _refuse(send, error)
            return
        except RedisError as error:  # the token cannot be checked
            log.warning("notification stream: sign-in not checked (%r)", error)
            await _refuse(send, ServiceUnavailable(retry_after=RETRY_MS // 1000))
            return
        user_id = viewer["id"]
        try:
            # Subscribed first, then read: what commits after the read is poked (decision 386).
            listener = await fanout().subscribe(live.channel(user_id))
        except (RedisError, ConnectionError, TimeoutError, OSError) as error:
            log.warning("notification stream: no subscription for user %s (%r)", user_id, error)
            await _refuse(send, ServiceUnavailable(retry_after=RETRY_MS // 1000))
            return
    watcher = asyncio.create_task(_watch_disconnect(receive, listener))
    try:
        try:
            start = await _in_database(functools.partial(_since, user_id, resume))
        except Exception:
            log.exception("notification stream: the inbox of user %s not read", user_id)
            with translation.override(language(headers)):
                await _refuse(send, ServiceUnavailable(retry_after=RETRY_MS // 1000))
            return
        await _serve(send, listener, token, user_id, resume, start)
    except (OSError, RuntimeError) as error:  # the client went while a chunk was on its way
        log.debug("notification stream: client gone (%r)", error)
    finally:
        watcher.cancel()
        fanout().unsubscribe(listener)


async def _serve(
    send: Send,
    listener: Listener,
    token: str,
    user_id: int,
    resume: int | None,
    start: tuple[list[dict[str, Any]], int, int],
) -> None:
    items, unread, newest = start
    position = Position(newest if resume is None else resume)
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [
                (b"content-type", b"text/event-stream; charset=utf-8"),
                (b"cache-control", b"no-store"),
                (b"x-accel-buffering", b"no"),  # nginx: pass each event on at once
            ],
        }
    )
    chunks = [b"retry: %d\n\n" % RETRY_MS]
    fresh = position.fresh(items, time.monotonic())
    chunks += [_event("notification", item["id"], item) for item in fresh]
    chunks.append(_event("unread", position.top, {"unread": unread}))
    await _write(send, b"".join(chunks))
    sent_unread = unread
    heartbeat = settings.NOTIFICATIONS_STREAM_HEARTBEAT
    next_check = time.monotonic() + heartbeat
    while True:
        poked = await listener.wait(heartbeat)
        if listener.closed or listener.lost:
            break  # gone, or its subscription lost: the client reconnects and catches up
        if time.monotonic() >= next_check:  # however busy the stream, once a heartbeat
            if not await _still_signed_in(token):
                break
            next_check = time.monotonic() + heartbeat
        if not poked:
            await _write(send, _HEARTBEAT_LINE)
            continue
        now = time.monotonic()
        position.forget(now)
        try:
            items, unread, _ = await _in_database(
                functools.partial(_since, user_id, position.floor)
            )
        except Exception as error:  # the database is away: the client reconnects later
            log.warning("notification stream: the inbox of user %s not read (%r)", user_id, error)
            break
        chunks = [_event("notification", item["id"], item) for item in position.fresh(items, now)]
        if unread != sent_unread or chunks:
            chunks.append(_event("unread", position.top, {"unread": unread}))
            sent_unread = unread
            await _write(send, b"".join(chunks))
    await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _write(send: Send, chunk: bytes) -> None:
    await send({"type": "http.response.body", "body": chunk, "more_body": True})


async def _watch_disconnect(receive: Receive, listener: Listener) -> None:
    """Ends the stream's wait as soon as its client goes."""
    while (await receive())["type"] != "http.disconnect":
        pass
    listener.close()


def _resume_from(headers: dict[bytes, bytes], query: dict[str, list[str]]) -> int | None:
    """The id to resume after: the Last-Event-ID a browser sends when it reconnects, else
    `?last_event_id=` (a client opening a new stream itself); None for a fresh start."""
    header = headers.get(b"last-event-id", b"").decode("latin-1").strip()
    if header.isdigit() and int(header) <= _MAX_ID:
        return int(header)  # anything else was not ours: a fresh start
    given = query.get("last_event_id")
    if not given:
        return None
    value = given[-1].strip()
    if not value.isdigit() or int(value) > _MAX_ID:
        raise InvalidInput(gettext("last_event_id must be a notification id."))
    return int(value)


async def _caller(
    headers: dict[bytes, bytes], query: dict[str, list[str]]
) -> tuple[str, dict[str, Any]]:
    """The caller's login token and its data (the token refreshed, as every request
    refreshes it); NotAuthenticated for none, an unknown one or a spent ticket."""
    token = tokens.bearer_token(headers.get(b"authorization", b"").decode("latin-1"))
    if token is None and query.get("ticket"):
        token = await ticket_redeem(query["ticket"][-1])
    data = await _touch(token) if token is not None else None
    if token is None or data is None:
        raise NotAuthenticated()
    return token, data


async def _touch(token: str) -> dict[str, Any] | None:
    async with bounded():
        reply = await get_async_redis().getex(keys.login_token(token), ex=settings.AUTH_TOKEN_TTL)
    return tokens.touched_data(reply)  # as a request's: its user id on the log lines


async def _still_signed_in(token: str) -> bool:
    """Whether the stream's token still lives (a logout or a revoke ends the stream);
    refreshed as the bell's polling refreshed it. A Redis blip keeps the stream."""
    try:
        return await _touch(token) is not None
    except Exception as error:
        log.warning("notification stream: token not checked (%r)", error)
        return True


async def _refuse(send: Send, error: DomainError) -> None:
    """An error in the API's shape (`detail` in the request's language, `code`)."""
    body: dict[str, Any] = {"detail": str(error.detail), "code": error.code}
    if isinstance(error, InvalidInput):  # as DRF's ValidationError reads
        body = {
            "detail": gettext("Invalid input."),
            "code": Code.INVALID,
            "errors": {"last_event_id": [str(error.detail)]},
        }
    extra = domain_error_headers(error) or {}
    await send(
        {
            "type": "http.response.start",
            "status": error.status_code,
            "headers": [
                (b"content-type", b"application/json"),
                (b"cache-control", b"no-store"),
                *((name.lower().encode(), value.encode()) for name, value in extra.items()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": orjson.dumps(body)})


class _Headers:
    """Just what Django's language negotiation reads of a request."""

    def __init__(self, accept_language: str) -> None:
        self.META = {"HTTP_ACCEPT_LANGUAGE": accept_language}
        self.COOKIES: dict[str, str] = {}


def language(headers: dict[bytes, bytes]) -> str:
    """The language of a request's `detail`s, as LocaleMiddleware would choose it."""
    accept = headers.get(b"accept-language", b"").decode("latin-1")
    return translation.get_language_from_request(_Headers(accept))  # type: ignore[arg-type]
