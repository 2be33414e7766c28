"""Project package: settings, URLs, the Celery app and the shared Redis toolkit."""

from .celery import app as celery_app

__all__ = ["celery_app"]
