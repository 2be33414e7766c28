"""The process's background machinery, in one place.

Four parts run beside requests and tasks: the near cache's invalidation listener, the
UV/PV flusher (traffic/visits.py, an app's: it registers from its AppConfig.ready()), the
cache's rebuild pool and the lock watchdogs. Each registers here and also starts on
first use, so a forked server worker whose parent started them starts its own; this
module is the one that starts the long-running ones up front, resets them (between
tests), stops them (at exit) and forgets them in a forked child, whose parent's threads
do not exist.

    runtime.start()   start the long-running parts now (the WSGI entry point does)
    runtime.reset()   nothing buffered, cached or running from before (tests)
    runtime.stop()    flush what is buffered and stop (at exit; tests need not call it)
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Part:
    name: str
    reset: Callable[[], None]  # drop everything held; wait for work in flight
    stop: Callable[[], None]  # flush and stop, at exit
    after_fork: Callable[[], None]  # the child starts with none of the parent's threads
    start: Callable[[], None] | None = None  # None: started per use (a watchdog per lock)


_parts: dict[str, Part] = {}


def register(part: Part) -> None:
    """Called once by each background part, when its module is imported."""
    _parts[part.name] = part


def start() -> None:
    """Start the parts registered so far: each registers when its module is imported, so
    the caller imports what it needs started first (dianping/wsgi.py; the apps' parts,
    traffic's UV/PV flusher, registered from their AppConfig.ready())."""
    for part in _parts.values():
        if part.start is not None:
            part.start()


def reset() -> None:
    for part in _parts.values():
        part.reset()


def stop() -> None:
    for part in _parts.values():
        with contextlib.suppress(Exception):  # one failing part must not keep others up
            part.stop()


def _after_fork() -> None:
    for part in _parts.values():
        part.after_fork()


os.register_at_fork(after_in_child=_after_fork)
atexit.register(stop)
