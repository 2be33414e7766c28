"""Issue a sale's challenge for each login token of a file and write the answers out.

For load tests only (`make bench-seckill`'s run with the challenge on): the API never
reveals an answer, so a benchmark client cannot answer the picture itself. It needs shell
access to the server, which is the authorisation, as `issue_tokens` does. Each line out is
`<token> <challenge id> <answer>`, in the order of the tokens in.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts import tokens
from vouchers.sale.challenge import challenge_issue


class Command(BaseCommand):
    help = "Issue a sale's challenge per login token (load tests) and write the answers."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--voucher", type=int, required=True, help="The sale's voucher id.")
        parser.add_argument("--tokens", required=True, help="A file of tokens, one a line.")
        parser.add_argument("--out", required=True, help="Where the answers are written.")

    def handle(self, *args: Any, voucher: int, tokens: str, out: str, **options: Any) -> None:
        with open(tokens, encoding="ascii") as fh:
            wanted = [line.strip() for line in fh if line.strip()]
        lines = []
        for token in wanted:
            data = tokens_data(token)
            issued = challenge_issue(user_id=int(data["id"]), voucher_id=voucher)
            lines.append(f"{token} {issued.id} {issued.answer}\n")
        with open(out, "w", encoding="ascii") as fh:
            fh.writelines(lines)
        self.stderr.write(f"wrote {len(lines)} challenges of sale {voucher} to {out}")


def tokens_data(token: str) -> dict[str, Any]:
    data = tokens.token_touch(token)
    if data is None:
        raise CommandError(f"unknown or expired token {token[:8]}...")
    return data
