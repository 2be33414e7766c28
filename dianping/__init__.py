"""Project package: settings, URLs, the Celery app and the commands that span apps (the
toolkit they build on is `toolkit/`, the pictures `pictures/`)."""

from .celery import app as celery_app

__all__ = ["celery_app"]
