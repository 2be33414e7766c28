"""Claiming normal vouchers under load: POST /api/vouchers/{id}/claim for an unlimited
voucher and for one with stock (the guarded `UPDATE ... WHERE stock > 0` every claim
of it runs, all on one row), against the bare-view baseline; then the last units of a
small stock claimed by everyone at once, checking that claimed + left = stock.

    DATABASE_URL=mysql://... .venv/bin/python bench/claims.py [--duration 10s] [--tokens 20000]

`make bench-claims` starts MariaDB and Redis and runs it. Prints Markdown for
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from harness import WRK_DIR, Server, WrkResult, manage, manage_output, run_wrk, server_env


def django(code: str, env: dict[str, str]) -> str:
    return manage_output("shell", "-v0", "-c", code, env=env).strip()


def make_voucher(env: dict[str, str], stock: int | None) -> int:
    return int(
        django(
            "from shops.models import Shop; from vouchers import services; "
            "v = services.voucher_create(data={'shop': Shop.objects.first(), 'title': 'bench', "
            "'pay_value': 0, 'actual_value': 500, 'type': 'normal', 'per_user_limit': 100, "
            f"'stock': {stock!r}}}); print(v.id)",
            env,
        )
    )


def claimed_and_left(env: dict[str, str], voucher_id: int) -> tuple[int, int | None]:
    code = (
        "from vouchers.models import Voucher, VoucherOrder; "
        f"print(VoucherOrder.objects.filter(voucher_id={voucher_id}).count(), "
        f"Voucher.objects.get(pk={voucher_id}).stock)"
    )
    claimed, left = django(code, env).split()
    return int(claimed), None if left == "None" else int(left)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--duration", default="10s")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--tokens", type=int, default=20000)
    parser.add_argument("--last-units", type=int, default=500)
    parser.add_argument("--port", type=int, default=8078)
    args = parser.parse_args()

    # Claims are limited per user (20/minute by default): rotating thousands of users keeps
    # each under it, as a crowd would be; the limit itself is not what is measured.
    env = server_env(THROTTLE_CLAIM_USER="100000/minute")
    print(f"database: {env.get('DATABASE_URL', 'sqlite (default)')}")
    manage("migrate", "--noinput", "-v0", env=env)
    manage("seed_demo", "--force", env=env)
    manage("reconcile_seckill", "--fix", env=env)  # the shards verified (vouchers/sale/heal.py)
    tokens = Path(tempfile.mkdtemp()) / "tokens.txt"
    manage("issue_tokens", "--count", str(args.tokens), "--out", str(tokens), env=env)
    unlimited, stocked = make_voucher(env, None), make_voucher(env, 10_000_000)
    last = make_voucher(env, args.last_units)

    def claim(voucher_id: int, duration: str) -> WrkResult:
        return run_wrk(
            server.url,
            duration=duration,
            connections=args.connections,
            script=str(WRK_DIR / "seckill.lua"),
            env={
                **os.environ,
                "VOUCHER_ID": str(voucher_id),
                "TOKENS_FILE": str(tokens),
                "ACTION": "claim",
            },
        )

    ping = str(WRK_DIR / "ping.lua")
    with Server("granian", args.workers, args.port, env, args.threads) as server:
        run_wrk(server.url, duration="3s", connections=args.connections, script=ping)
        base = run_wrk(
            server.url, duration=args.duration, connections=args.connections, script=ping
        )
        free = claim(unlimited, args.duration)
        guarded = claim(stocked, args.duration)
        rush = claim(last, "5s")
    claimed, left = claimed_and_left(env, last)

    print(
        f"\ngranian {args.workers} workers x {args.threads} threads, "
        f"wrk -t2 -c{args.connections} -d{args.duration}, {args.tokens} rotating users\n"
    )
    print("| measure | value |")
    print("|---|---|")
    print(
        f"| bare Django view `/api/ping` | {base.requests_per_second:.0f} req/s, "
        f"p50 {base.p50_ms:.2f} ms, p99 {base.p99_ms:.2f} ms |"
    )
    for label, result in (
        ("unlimited voucher", free),
        ("voucher with stock (guarded UPDATE)", guarded),
    ):
        print(
            f"| `POST /api/vouchers/{{id}}/claim`, {label} | {result.requests_per_second:.0f} "
            f"req/s (**{result.requests_per_second / base.requests_per_second:.2f}** x "
            f"baseline), p50 {result.p50_ms:.2f} ms, p99 {result.p99_ms:.2f} ms, "
            f"{result.non_2xx} non-2xx |"
        )
    print(f"| stock vs unlimited | {guarded.requests_per_second / free.requests_per_second:.2f} |")
    adds_up = left is not None and claimed + left == args.last_units
    print(
        f"| last {args.last_units} units, 5 s of everyone claiming | {claimed} claimed + "
        f"{left} left = {args.last_units}: {'adds up' if adds_up else 'DOES NOT add up'}; "
        f"{rush.non_2xx} refused (409) |"
    )


if __name__ == "__main__":
    main()
