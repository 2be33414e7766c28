"""The Celery app. Configuration lives in Django settings under the CELERY_ prefix."""

import os
from typing import Any

from celery import Celery, signals

from toolkit import logs

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dianping.settings.dev")

app = Celery("dianping")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
logs.connect_celery()  # a task's log lines carry its task id


# A worker or beat on a Redis of another database stops before its first task
# (decision 292). Celery logs and swallows a handler's exceptions, not a SystemExit.
@signals.worker_init.connect(weak=False)
def _worker_checks_redis(**kwargs: Any) -> None:
    from toolkit import identity

    identity.verify_at_start("celery worker")


@signals.beat_init.connect(weak=False)
def _beat_checks_redis(**kwargs: Any) -> None:
    from toolkit import identity

    identity.verify_at_start("celery beat")
