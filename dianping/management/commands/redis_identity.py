"""Check that every Redis of the app holds this database's data (decision 292)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from toolkit import identity

REFUSED = 3  # the exit status when a Redis holds another database's data (scripts/run.sh)


class Command(BaseCommand):
    help = (
        "Check that every Redis the app writes carries this database's identity, claiming "
        "one that carries none; fails, saying which, if one belongs to another database."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            claimed = identity.verify()
        except identity.RedisOfAnotherDatabase as refused:
            raise CommandError(str(refused), returncode=REFUSED) from None
        ours = identity.database_identity()
        self.stdout.write(f"database {identity.describe_database()}: identity {ours}")
        for alias, now in claimed.items():
            state = "claimed now (it carried no identity)" if now else "this database's"
            self.stdout.write(self.style.SUCCESS(f"redis {identity.describe(alias)}: {state}"))
