"""Picture work (decode, re-encode, thumbnail) runs apart from requests: bounded, in a
process of its own at a lower CPU priority, so that a burst of uploads never starves the
reads beside it.

A server process has a few request threads, one GIL, and shares two cores: a few big
pictures decoded in it at once held all of it (eight uploads kept a server busy for 11 s
and pushed the shop page's p99 to 6 s). Measured here (docs/benchmarks.md), a niced thread
of the same process still multiplied the shop page's p99 by 5 to 6 under a photo a second
from each of 8 users: Pillow releases the GIL in its C loops, but not between them. So
each server process hands its pictures to one process of its own (spawned on the first
upload, niced by IMAGE_WORK_NICE), which the kernel runs after the request threads: the
same load then cost the shop page's p99 about 2 times, most of it the uploads' bytes.

At most IMAGE_WORK_QUEUE pictures wait for it; an upload beyond that is refused at once,
before its body is parsed, with 503 and Retry-After: uploads hold at most 1 + that many
of a process's request threads, and the others stay free for reads.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext

from toolkit import runtime
from toolkit.errors import Code, DomainError, ServiceUnavailable

log = logging.getLogger(__name__)
T = TypeVar("T")

_lock = threading.Lock()
_executor: ProcessPoolExecutor | None = None
_slots: threading.BoundedSemaphore | None = None  # the picture at work, and those waiting


@contextlib.contextmanager
def slot() -> Iterator[None]:
    """A place among the pictures this process works on or queues (1 + IMAGE_WORK_QUEUE),
    held by the upload from before its body is parsed until it is stored; 503 `busy`
    with Retry-After at once when there is none, so no request thread waits for one."""
    with _lock:
        if _slots is None:
            _reset_slots()
        slots = _slots
    assert slots is not None
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


def run(work: Callable[..., T], *args: Any) -> T:
    """`work(*args)` in the image process; its result, or its DomainError (a refusal),
    raised here. `work` is a module-level function (it is sent by name); called inside
    `slot()`, which bounds how many wait for it."""
    pool = _pool()
    try:
        outcome, value = pool.submit(_perform, work, args, translation.get_language()).result()
    except BrokenProcessPool:
        # The image process died (killed for memory, a decoder's crash): this picture is
        # lost, the next one gets a fresh process.
        _discard(pool)
        log.error("the image process died; a new one starts with the next picture")
        raise ServiceUnavailable(
            gettext("The picture could not be processed; try again."),
            Code.BUSY,
            retry_after=settings.IMAGE_WORK_RETRY_AFTER,
        ) from None
    if outcome == "refused":
        raise value
    return value


def _perform(work: Callable[..., Any], args: tuple, language: str | None) -> tuple[str, Any]:
    """In the image process: the work, in the request's language (a refusal's detail)."""
    with translation.override(language):
        try:
            return "done", work(*args)
        except DomainError as refusal:
            return "refused", refusal


def _start_worker(nice: int) -> None:
    """The image process's first act: lower its priority, then load Django (settings,
    translations) as the server process it works for has."""
    try:
        os.nice(nice)
    except OSError as exc:  # a sandbox that refuses: full priority, still bounded
        log.warning("image work runs at normal priority: %s", exc)
    import django

    django.setup()


def _pool() -> ProcessPoolExecutor:
    global _executor
    with _lock:
        if _executor is None:
            # spawn, not fork: a server process has threads, whose locks a fork would copy.
            _executor = ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_worker,
                initargs=(settings.IMAGE_WORK_NICE,),
            )
        return _executor


def _discard(pool: ProcessPoolExecutor) -> None:
    """Forget a broken pool (unless another thread already replaced it)."""
    global _executor
    with _lock:
        if _executor is pool:
            _executor = None
    pool.shutdown(wait=False, cancel_futures=True)


def _reset_slots() -> None:
    global _slots
    _slots = threading.BoundedSemaphore(1 + settings.IMAGE_WORK_QUEUE)


def _reset() -> None:
    """Between tests: size the queue anew (the image process stays: it holds nothing of
    a test's, and spawning one takes a second)."""
    with _lock:
        _reset_slots()


def _stop() -> None:
    global _executor
    with _lock:
        if _executor is not None:
            _executor.shutdown(wait=False, cancel_futures=True)
        _executor = None


def _forget_after_fork() -> None:
    global _executor, _slots, _lock
    # The parent's image process is not the child's to use, and the lock may have been
    # held by one of the parent's threads at the fork.
    _executor = _slots = None
    _lock = threading.Lock()


runtime.register(
    runtime.Part("image-work", reset=_reset, stop=_stop, after_fork=_forget_after_fork)
)
