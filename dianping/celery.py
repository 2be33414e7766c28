"""The Celery app. Configuration lives in Django settings under the CELERY_ prefix."""

import os

from celery import Celery

from dianping import logs

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dianping.settings.dev")

app = Celery("dianping")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
logs.connect_celery()  # a task's log lines carry its task id
