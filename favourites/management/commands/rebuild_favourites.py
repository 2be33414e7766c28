"""Rewrite the Redis favourites sets from the Favourite rows, and count every shop's and
note's favourites again (after Redis lost data, or a count drifted)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from favourites.services import favourites_rebuild


class Command(BaseCommand):
    help = "Rebuild the Redis favourites sets and the favourites counts from the database."

    def handle(self, *args: Any, **options: Any) -> None:
        sets, fixed = favourites_rebuild()
        self.stdout.write(
            self.style.SUCCESS(f"favourites sets rebuilt: {sets}; counts fixed: {fixed}")
        )
