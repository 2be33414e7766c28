"""Auto-pipelining for threads: the script calls of one process that need Redis at the same
moment share one round trip.

A web worker serves several requests at once, each on its own thread, and each of them
would write one EVALSHA and wait for its reply. Here the first caller becomes the batch's
leader: it sends every call queued so far as one pipeline, hands each reply to its caller,
and passes the lead to the first caller that queued meanwhile. No call waits for a timer:
a batch is simply whatever arrived while the previous one was on the wire, so a lone
request pays nothing but a lock, and a busy process pays one write and one read per batch
instead of per request, on both sides of the socket.

Single Redis only: a Cluster's calls may live on different nodes (callers fall back to
one call at a time there).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import redis

from .client import get_redis


class _Call:
    __slots__ = ("args", "done", "lead", "reply")

    def __init__(self, args: tuple[Any, ...]) -> None:
        self.args = args
        self.done = threading.Event()
        self.lead = False  # woken to lead the next batch, not with a reply
        self.reply: Any = None


class Coalescer:
    """Runs Redis commands, batching those that arrive while a batch is in flight."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queue: list[_Call] = []
        self._busy = False  # a leader is sending or reading a batch
        self.calls = self.batches = 0  # what the batching saves: calls per round trip

    def execute(self, *args: Any) -> Any:
        """One command's reply (its error raised), sent in whatever batch it joins."""
        call = _Call(args)
        with self._lock:
            self._queue.append(call)
            leads = not self._busy
            self._busy = True
        if not leads:
            call.done.wait()
            if not call.lead:
                return _unwrap(call.reply)
        self._run_batch()
        return _unwrap(call.reply)

    def _run_batch(self) -> None:
        with self._lock:
            batch, self._queue = self._queue, []
            self.calls += len(batch)
            self.batches += 1
        try:
            pipe = get_redis().pipeline(transaction=False)
            for call in batch:
                pipe.execute_command(*call.args)
            replies = pipe.execute(raise_on_error=False)
        except Exception as exc:  # the connection failed: every caller of the batch hears it
            replies = [exc] * len(batch)
        with self._lock:
            if self._queue:  # queued while this batch was on the wire: the next leader
                successor = self._queue[0]
                successor.lead = True
                successor.done.set()
            else:
                self._busy = False
        for call, reply in zip(batch, replies, strict=True):
            call.reply = reply
            call.done.set()


def _unwrap(reply: Any) -> Any:
    if isinstance(reply, BaseException):
        raise reply
    return reply


_coalescer = Coalescer()


def evalsha(sha: str, source: str, keys: Sequence[str], args: Sequence[Any]) -> Any:
    """EVALSHA through the process's coalescer; loads the script once after NOSCRIPT
    (a Redis restart or SCRIPT FLUSH) and retries, as redis-py's Script does."""
    try:
        return _coalescer.execute("EVALSHA", sha, len(keys), *keys, *args)
    except redis.exceptions.NoScriptError:
        get_redis().script_load(source)
        return _coalescer.execute("EVALSHA", sha, len(keys), *keys, *args)
