from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _tasks_run_eagerly(eager_tasks: None) -> None:
    """The index refresh task runs in-process when its write commits."""
