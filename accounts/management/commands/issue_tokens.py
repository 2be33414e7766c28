"""Create (or reuse) N users and print one valid login token per line.

For load tests, demos and support; it needs shell access to the server, which
is the authorisation. Users come from fixed 11-digit ranges that no mainland
mobile number uses (they fail ^1[3-9]), so re-running reuses them and never
touches a real customer: 100xxxxxxxx for regular users, 101xxxxxxxx for --staff.
`--phone` instead issues one token for an existing account (support, the README's
demo walk-through); it never creates an account or changes one.
"""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts import services, tokens
from accounts.models import User

MAX_COUNT = 1_000_000


def load_test_phones(count: int, *, staff: bool) -> list[str]:
    prefix = "101" if staff else "100"
    return [f"{prefix}{i:08d}" for i in range(count)]


class Command(BaseCommand):
    help = "Create or reuse N users and write one login token per line."

    def add_arguments(self, parser: CommandParser) -> None:
        who = parser.add_mutually_exclusive_group(required=True)
        who.add_argument("--count", type=int, help="How many load-test users/tokens.")
        who.add_argument("--phone", help="One token for the existing account with this phone.")
        parser.add_argument("--staff", action="store_true", help="Make them staff users.")
        parser.add_argument("--out", help="Write tokens to this file instead of stdout.")

    def handle(
        self,
        *args: Any,
        count: int | None,
        phone: str | None,
        staff: bool,
        out: str | None,
        **options: Any,
    ) -> None:
        if phone is not None:
            if staff:
                raise CommandError("--staff makes load-test users; it never promotes an account")
            users = list(User.objects.filter(phone=phone, is_active=True))
            if not users:
                raise CommandError(f"no active account has the phone {phone}")
        elif count is None or not 1 <= count <= MAX_COUNT:
            raise CommandError(f"--count must be between 1 and {MAX_COUNT}")
        else:
            users = services.users_ensure(phones=load_test_phones(count, staff=staff), staff=staff)
        issued: list[str] = []
        for start in range(0, len(users), 1000):
            issued += tokens.tokens_issue(users[start : start + 1000])
        lines = "".join(f"{token}\n" for token in issued)
        if out:
            with open(out, "w", encoding="ascii") as fh:
                fh.write(lines)
            self.stderr.write(f"wrote {len(issued)} tokens to {out}")
        else:
            sys.stdout.write(lines)
