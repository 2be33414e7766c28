"""The platform's own table: the database's identity (toolkit.identity)."""

from __future__ import annotations

from django.db import models


class DatabaseIdentity(models.Model):
    """One row (id 1): a random UUID made once for this database, which every Redis the
    app writes carries, so that no process serves one database's Redis state beside
    another database (decision 291)."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1, editable=False)
    value = models.UUIDField()
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return str(self.value)
