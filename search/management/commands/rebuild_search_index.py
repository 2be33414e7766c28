from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from search import index
from search.documents import kinds


class Command(BaseCommand):
    help = "Re-index every searchable shop, note and user from the database, in batches."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--kind", action="append", choices=kinds(), help="Only this kind.")

    def handle(self, *args: Any, kind: list[str] | None, **options: Any) -> None:
        counts = index.rebuild(only=kind, progress=options["verbosity"] > 0)
        summary = ", ".join(f"{k}: {n}" for k, n in counts.items())
        self.stdout.write(self.style.SUCCESS(f"search index: {summary}"))
