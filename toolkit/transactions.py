"""The one place that retries a transaction the database gave up on.

Lock order comes first: every service that adds a child row and moves a counter on its
parent locks the parent before it inserts (see `blogs.services.comment_create`), so the
writes we know of cannot deadlock. InnoDB may still pick a victim where two paths we did
not foresee meet, or give up waiting for a lock (innodb_lock_wait_timeout); the whole
transaction was rolled back then, and running it again is safe. A service decorated here
runs again, a bounded number of times; after that the caller gets a 503 with Retry-After
(toolkit.api.exceptions), never a 500.
"""

from __future__ import annotations

import functools
import logging
import random
import time
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from django.db import OperationalError, connection

log = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")

ATTEMPTS = 3
# MySQL/MariaDB: ER_LOCK_DEADLOCK (the transaction was chosen as a deadlock's victim) and
# ER_LOCK_WAIT_TIMEOUT (it waited longer than innodb_lock_wait_timeout).
LOCK_CONFLICT_CODES = frozenset({1213, 1205})


def is_lock_conflict(exc: BaseException) -> bool:
    """Whether the database refused `exc`'s statement for a lock another transaction held:
    a deadlock or lock wait timeout on MySQL/MariaDB, "database is locked" on SQLite."""
    if not isinstance(exc, OperationalError):
        return False
    code = exc.args[0] if exc.args else None
    return code in LOCK_CONFLICT_CODES or "database is locked" in str(exc)


def retry_on_lock_conflict(service: Callable[P, R]) -> Callable[P, R]:
    """Run `service` again when its transaction lost a lock conflict, up to ATTEMPTS times.

    The service must leave nothing behind when its transaction rolls back (its Redis work
    after commit, its task enqueues through on_commit). Inside someone else's transaction
    it runs once: the outer transaction was rolled back with it, and only its owner can
    run it again.
    """

    @functools.wraps(service)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        if connection.in_atomic_block:
            return service(*args, **kwargs)
        for attempt in range(1, ATTEMPTS + 1):
            try:
                return service(*args, **kwargs)
            except OperationalError as exc:
                if attempt == ATTEMPTS or not is_lock_conflict(exc):
                    raise
                log.warning(
                    "%s lost a lock conflict (%s); attempt %d", service.__name__, exc, attempt + 1
                )
                # Apart again before the next try, so the same two do not meet at once.
                time.sleep(random.uniform(0.005, 0.02) * attempt)
        raise AssertionError("unreachable")  # pragma: no cover

    return run
