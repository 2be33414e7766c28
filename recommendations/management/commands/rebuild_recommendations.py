"""Rewrite the "guess you like" model in Redis from the database (after Redis lost data,
or to renormalise the weights; decision 405)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from recommendations.store import recommendations_rebuild


class Command(BaseCommand):
    help = "Rebuild the recommendations (co-occurrence) keys in Redis from the database."

    def handle(self, *args: Any, **options: Any) -> None:
        users, shops = recommendations_rebuild()
        self.stdout.write(
            self.style.SUCCESS(f"recommendations rebuilt: {users} histories, {shops} shops")
        )
