"""Search background work: thin, idempotent (a refresh re-reads the row, so running it
twice or late is harmless)."""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError, transaction

from . import index


@shared_task(ignore_result=True, autoretry_for=(OperationalError,), retry_backoff=1, max_retries=5)
def refresh_document(kind: str, object_id: int) -> bool:
    return index.refresh(kind, object_id)


def refresh_on_commit(kind: str, object_id: int) -> None:
    """After the caller's transaction commits (never if it rolls back), refresh the
    document in a task, so the write itself is not slowed. Services that change a
    searchable row call it inside their transaction; moderators hiding or restoring a
    note: ("notes", blog_id)."""
    transaction.on_commit(lambda: refresh_document.delay(kind, object_id), robust=True)
