"""Count every user's all-time sign-in total again from their month bitmaps (after Redis
lost the counters, or one drifted): the bitmaps are the record, sign-ins have no rows."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from signin import keys
from signin.services import recount_total
from toolkit.redis.client import get_redis


class Command(BaseCommand):
    help = "Recount the all-time sign-in totals from the month bitmaps."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--user", type=int, action="append", help="Only this user (repeatable)."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        users = options["user"] or sorted(_signed_users())
        for user_id in users:
            recount_total(user_id=user_id)
        self.stdout.write(self.style.SUCCESS(f"sign-in totals recounted: {len(users)} users"))


def _signed_users() -> set[int]:
    found = set()
    for name in get_redis().scan_iter(match=keys.sign_month_pattern(), count=1000):
        user_id = _user_of(name.decode() if isinstance(name, bytes) else name)
        if user_id is not None:
            found.add(user_id)
    return found


def _user_of(key: str) -> int | None:
    """The user id in a month bitmap's key (signin.keys.sign_month); None for another key."""
    parts = key.split(":")
    is_month = len(parts) == 4 and len(parts[3]) == 6 and parts[3].isdigit()
    return int(parts[2]) if is_month and parts[2].isdigit() else None
