"""Count every user's all-time sign-in total again from their month bitmaps (after Redis
lost the counters, or one drifted): the bitmaps are the record, sign-ins have no rows."""

from __future__ import annotations

import re
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from signin.services import recount_total
from toolkit.redis.client import get_redis

# Any user's month bitmap, `sign:{g<bucket>}:<user_id>:<YYYYMM>` (signin.keys.sign_month).
_MONTH_KEYS = "sign:{g*}:*:" + "[0-9]" * 6
_USER = re.compile(r"sign:\{g\d+\}:(\d+):\d{6}")


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
    for name in get_redis().scan_iter(match=_MONTH_KEYS, count=1000):
        text = name.decode() if isinstance(name, bytes) else name
        match = _USER.fullmatch(text)
        if match:
            found.add(int(match.group(1)))
    return found
