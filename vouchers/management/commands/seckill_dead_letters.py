from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from vouchers.sale import dead_letters


class Command(BaseCommand):
    help = (
        "List the flash-sale orders the drain gave up on; --replay persists them once "
        "the cause is fixed (letters that cannot be replayed are kept, with the reason)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--shard", type=int, help="Only this shard.")
        parser.add_argument("--replay", action="store_true", help="Persist them now.")

    def handle(self, *args: Any, shard: int | None, replay: bool, **options: Any) -> None:
        if not replay:
            letters = dead_letters.dead_letters(shard=shard)
            for letter in letters:
                self.stdout.write(_describe(letter, letter.reason))
            self.stdout.write(self.style.SUCCESS(f"{len(letters)} dead letter(s)"))
            return
        outcome = dead_letters.replay(shard=shard)
        for letter, why in outcome.kept:
            self.stdout.write(_describe(letter, why))
        self.stdout.write(
            self.style.SUCCESS(f"{len(outcome.replayed)} replayed, {len(outcome.kept)} kept")
        )


def _describe(letter: dead_letters.DeadLetter, why: str) -> str:
    order = letter.order()
    what = (
        f"order {order.order_id} (user {order.user_id}, voucher {order.voucher_id})"
        if order
        else f"fields {letter.fields!r}"
    )
    return f"shard {letter.shard} letter {letter.letter_id.decode()}: {what}: {why}"
