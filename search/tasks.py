"""Search background work: thin, idempotent (a refresh re-reads the row, so running it
twice or late is harmless)."""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from . import index


@shared_task(ignore_result=True, autoretry_for=(OperationalError,), retry_backoff=1, max_retries=5)
def refresh_document(kind: str, object_id: int) -> bool:
    return index.refresh(kind, object_id)
