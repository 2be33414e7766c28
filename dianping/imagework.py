"""Picture work (decode, re-encode, thumbnail) runs apart from requests: bounded, and at a
lower CPU priority, so that a burst of uploads never starves the reads beside it.

A server process has a few request threads and shares two cores; a few big pictures
decoded at once used to hold all of them (eight uploads kept a server busy for 11 s and
pushed the shop page's p99 to 6 s). Here each process has one image thread, niced
(IMAGE_WORK_NICE): when the cores are contended the kernel runs request threads first,
and Pillow releases the GIL while it decodes, resizes and encodes, so they run beside it.
At most IMAGE_WORK_QUEUE pictures wait for it; an upload beyond that is refused at once,
before its body is read, with 503 and Retry-After: uploads hold at most 1 + that many of
a process's request threads, and the others stay free for reads.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from django.conf import settings
from django.utils.translation import gettext

from dianping import runtime
from dianping.errors import Code, ServiceUnavailable

log = logging.getLogger(__name__)
T = TypeVar("T")

_lock = threading.Lock()
_executor: ThreadPoolExecutor | None = None
_slots: threading.BoundedSemaphore | None = None  # the picture at work, and those waiting


@contextlib.contextmanager
def slot() -> Iterator[None]:
    """A place among the pictures this process works on or queues (1 + IMAGE_WORK_QUEUE),
    held by the upload from before its body is read until it is stored; 503 `busy`
    with Retry-After at once when there is none, so no request thread waits for one."""
    _, slots = _pool()
    if not slots.acquire(blocking=False):
        raise ServiceUnavailable(
            gettext("Too many pictures are being processed; try again shortly."),
            Code.BUSY,
            retry_after=settings.IMAGE_WORK_RETRY_AFTER,
        )
    try:
        yield
    finally:
        slots.release()


def run(work: Callable[..., T], *args: object) -> T:
    """`work(*args)` on the image thread; its result, or its exception, here. Called
    inside `slot()`, which bounds how many wait for it."""
    executor, _ = _pool()
    return executor.submit(work, *args).result()


def _pool() -> tuple[ThreadPoolExecutor, threading.BoundedSemaphore]:
    global _executor, _slots
    with _lock:
        if _executor is None or _slots is None:
            _slots = threading.BoundedSemaphore(1 + settings.IMAGE_WORK_QUEUE)
            _executor = ThreadPoolExecutor(
                max_workers=1, thread_name_prefix="image-work", initializer=_lower_priority
            )
        return _executor, _slots


def _lower_priority() -> None:
    """Linux schedules threads one by one: this nices the image thread alone."""
    try:
        thread = threading.get_native_id()
        now = os.getpriority(os.PRIO_PROCESS, thread)
        os.setpriority(os.PRIO_PROCESS, thread, min(19, now + settings.IMAGE_WORK_NICE))
    except OSError as exc:  # a platform or sandbox that refuses: full priority, still bounded
        log.warning("image work runs at normal priority: %s", exc)


def _shut_down(*, wait: bool = True) -> None:
    global _executor, _slots
    with _lock:
        if _executor is not None:
            _executor.shutdown(wait=wait)
        _executor = _slots = None


def _forget_after_fork() -> None:
    global _executor, _slots, _lock
    # The parent's thread does not exist in a forked child, and the lock may have been
    # held by one of the parent's threads at the fork.
    _executor = _slots = None
    _lock = threading.Lock()


runtime.register(
    runtime.Part(
        "image-work",
        reset=_shut_down,
        stop=lambda: _shut_down(wait=False),
        after_fork=_forget_after_fork,
    )
)
