import pytest

# Publishing, editing and following enqueue tasks; run them as they are enqueued.


@pytest.fixture(autouse=True)
def _tasks_run_eagerly(eager_tasks: None) -> None:
    pass
