"""What every log line says about the request (or task) it was written for.

Two context variables, set where the facts are known and read by one logging filter on
the console handler:
- the request id: an incoming `X-Request-ID` if it is short and plain (1-64 of letters,
  digits and `._~:+/=-`), else a new random one; set by GuardMiddleware, the first
  middleware, and sent back as `X-Request-ID` on every answer. A Celery task's lines
  carry the task's id instead;
- the user id: set where a login token is resolved (`accounts.tokens.touched_data`),
  so a line written before authentication, or for an anonymous caller, has none.

Both cost a header read, a few random bytes and two `ContextVar.set` per request: the
fast paths (toolkit/api/fastpath.py) pay no more than that.

A second filter on the same handler keeps the lines Django writes for a request the
client got wrong short, and one per kind every few seconds at most (decision 289).
"""

from __future__ import annotations

import logging
import os
import re
import threading
from contextvars import ContextVar
from typing import Any

from pythonjsonlogger.core import RESERVED_ATTRS
from pythonjsonlogger.json import JsonFormatter as _JsonFormatter

from toolkit import clock

HEADER = "X-Request-ID"
META_KEY = "HTTP_X_REQUEST_ID"
_SAFE_ID = re.compile(r"[A-Za-z0-9._~:+/=-]{1,64}")

request_id: ContextVar[str | None] = ContextVar("request_id", default=None)
user_id: ContextVar[int | None] = ContextVar("user_id", default=None)


def new_request_id() -> str:
    """32 random hex digits, as a uuid4's hex without its fixed bits."""
    return os.urandom(16).hex()


def accepted_request_id(incoming: str | None) -> str:
    """The caller's `X-Request-ID` when it is short and plain (a proxy's or a client's
    id, to follow one request through several systems); a new one otherwise, so no
    caller writes unbounded or misleading text into our logs."""
    if incoming and _SAFE_ID.fullmatch(incoming):
        return incoming
    return new_request_id()


class RequestContextFilter(logging.Filter):
    """Adds `request_id` and `user_id` (None outside a request, or when unknown) to every
    record its handler writes."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id.get()
        record.user_id = user_id.get()
        return True


MESSAGE_LIMIT = 240  # characters of a client error's message: what it quotes, cut


class ClientErrorFilter(logging.Filter):
    """Django's line for a request refused as the client's fault (a 4xx of `django.request`
    or of a `django.security.*` logger: a Host not allowed, too many form fields, a body it
    cannot parse) becomes one WARNING without the traceback, its message cut to
    MESSAGE_LIMIT characters. Django writes a refused Host as an ERROR with a stack and the
    Host quoted twice: 50 requests with a 4 KB Host wrote 877 KB, and paged on demand.

    A `django.security.*` logger then writes at most one such line per `interval` seconds
    (CLIENT_ERROR_LOG_INTERVAL) in this process; the next line it writes carries how many
    it dropped meanwhile (`suppressed`, and `[N suppressed]` after the message), so a
    scanner cannot drive log volume by sending more. Those loggers are named after
    Django's exception classes, so the table stays small whatever the requests say.
    `django.request`'s 4xx are not limited: they are written only when an operator asks
    for every 4xx (REQUEST_LOG_LEVEL=WARNING). 0 turns the limit off.

    On the handler, not the loggers: a logger's filter never sees its children's records,
    and the `django.security` family is open-ended. The record is changed in place (a
    filter cannot replace it before Python 3.12); the console is its only handler.
    """

    def __init__(self, name: str = "", interval: float = 0.0) -> None:
        super().__init__(name)
        self.interval = interval
        # Per logger: when its last line was written, and how many were dropped since.
        self._last: dict[str, tuple[float, int]] = {}
        self._lock = threading.Lock()  # a server's threads log through one handler

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if not (
            isinstance(status, int)
            and 400 <= status < 500
            and (record.name == "django.request" or record.name.startswith("django.security."))
        ):
            return True
        if record.levelno > logging.WARNING:
            # Its logger let it through as an ERROR; as a WARNING it must pass again.
            if not logging.getLogger(record.name).isEnabledFor(logging.WARNING):
                return False
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        suppressed = 0
        if self.interval > 0 and record.name != "django.request":
            now = clock.now_seconds()
            with self._lock:
                last, suppressed = self._last.get(record.name, (None, 0))
                # A clock stepped back writes rather than staying quiet until it catches up.
                if last is not None and 0 <= now - last < self.interval:
                    self._last[record.name] = (last, suppressed + 1)
                    return False
                self._last[record.name] = (now, 0)
        record.exc_info = None
        record.exc_text = None
        record.stack_info = None
        message = record.getMessage()
        if len(message) > MESSAGE_LIMIT:
            message = message[:MESSAGE_LIMIT] + "…"
        if suppressed:
            record.suppressed = suppressed
            message += f" [{suppressed} suppressed]"
        record.msg, record.args = message, ()
        return True


class JsonFormatter(_JsonFormatter):
    """python-json-logger's, without the `request` Django puts on its request log records:
    its text holds the query string, and nothing of a request's but its path, status,
    request id and user id belongs in a log line."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("reserved_attrs", [*RESERVED_ATTRS, "request"])
        super().__init__(*args, **kwargs)


def connect_celery() -> None:
    """A task's log lines carry its task id as their request id (and no user id); a
    task run inline by a request (eagerly, in tests) keeps the request's."""
    from celery import signals

    held: dict[str, tuple[Any, Any]] = {}

    @signals.task_prerun.connect(weak=False)
    def _task_started(task_id: str | None = None, **kwargs: Any) -> None:
        if task_id and request_id.get() is None:
            held[task_id] = (request_id.set(task_id), user_id.set(None))

    @signals.task_postrun.connect(weak=False)
    def _task_finished(task_id: str | None = None, **kwargs: Any) -> None:
        tokens = held.pop(task_id, None) if task_id else None
        if tokens is not None:
            try:
                request_id.reset(tokens[0])
                user_id.reset(tokens[1])
            except ValueError:  # finished in another context than it started in
                request_id.set(None)
                user_id.set(None)
