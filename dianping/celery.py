"""The Celery app. Configuration lives in Django settings under the CELERY_ prefix."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dianping.settings.dev")

app = Celery("dianping")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
