import pytest

# Likes, follows, comments and cancels enqueue notification tasks; run them as enqueued.


@pytest.fixture(autouse=True)
def _tasks_run_eagerly(eager_tasks: None) -> None:
    pass
