import pytest

# Likes and notes enqueue tasks (notifications, recounts); run them as enqueued.


@pytest.fixture(autouse=True)
def _tasks_run_eagerly(eager_tasks: None) -> None:
    pass
