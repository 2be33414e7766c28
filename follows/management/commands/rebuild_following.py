"""Rewrite every user's Redis following set from the Follow rows (after Redis lost data)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from follows.services import following_sets_rebuild


class Command(BaseCommand):
    help = "Rebuild the Redis following sets from the database."

    def handle(self, *args: Any, **options: Any) -> None:
        users = following_sets_rebuild()
        self.stdout.write(self.style.SUCCESS(f"following sets rebuilt for {users} users"))
