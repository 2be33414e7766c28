"""Helpers for tests that need real concurrency and polling instead of sleeps."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from django.db import connection

T = TypeVar("T")


def run_concurrently(fn: Callable[[int], T], workers: int) -> list[T]:
    """Run fn(i) in `workers` threads released together by a barrier; re-raise any error."""
    barrier = threading.Barrier(workers)
    results: list[Any] = [None] * workers
    errors: list[BaseException] = []

    def target(i: int) -> None:
        try:
            barrier.wait()
            results[i] = fn(i)
        except BaseException as exc:  # surfaced below, in the test's thread
            errors.append(exc)
        finally:
            connection.close()  # threads must not leak DB connections past the test

    threads = [threading.Thread(target=target, args=(i,)) for i in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    if errors:
        raise errors[0]
    return results


def wait_until(condition: Callable[[], Any], timeout: float = 10.0, interval: float = 0.01) -> Any:
    """Poll `condition` until it returns something truthy; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout}s")
        time.sleep(interval)
