"""Load demo data, idempotently. Later apps add their own sections here."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts import demo


class Command(BaseCommand):
    help = "Create demo users and a staff account (safe to re-run)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--force", action="store_true", help="Run even with DEBUG off (never in production)."
        )

    def handle(self, *args: Any, force: bool, **options: Any) -> None:
        if not settings.DEBUG and not force:
            raise CommandError(
                "seed_demo sets a well-known admin password; use --force to run it with DEBUG off."
            )
        staff = demo.seed_staff()
        users = demo.seed_users()
        self.stdout.write(
            self.style.SUCCESS(
                f"demo users: {len(users)} (phones {users[0].phone}..{users[-1].phone})"
            )
        )
        self.stdout.write(
            self.style.SUCCESS(
                f"admin login: username={staff.username} password={demo.ADMIN_PASSWORD}"
            )
        )
