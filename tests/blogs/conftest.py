"""Blog, follow and feed tests run their Celery tasks in-process, at enqueue time.

Eager mode replaces only the hop through the broker (tests/test_celery.py and
test_feed_with_a_real_worker prove that hop); Redis and the database stay real.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dianping.celery import app


@pytest.fixture(autouse=True)
def eager_tasks() -> Iterator[None]:
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False
