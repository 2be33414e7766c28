"""GET /api/shops/{id} (cache hit) against a bare Django JSON view, same server, same run.

    .venv/bin/python bench/shops_bench.py [--server granian|gunicorn] [--workers 2] [--threads 4]
        [--rounds 3] [--duration 10s] [--connections 32] [--near-cache-ttl 30]

Prints a Markdown table for docs/benchmarks.md. `make bench-shops` does the full
setup first (wrk, Redis). Anonymous and logged-in runs (1,000 tokens rotated
per request) are both measured; any non-2xx response or socket error fails the run.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import urllib.request
from pathlib import Path

from harness import (
    WRK_DIR,
    Server,
    WrkResult,
    manage,
    manage_output,
    median_result,
    run_wrk,
    server_env,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default="granian", choices=["granian", "gunicorn"])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4, help="threads per worker")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", default="10s")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--port", type=int, default=8077)
    parser.add_argument(
        "--near-cache-ttl", default="30", help="SHOP_NEAR_CACHE_TTL for the server; 0 = Redis only"
    )
    args = parser.parse_args()

    env = server_env(SHOP_NEAR_CACHE_TTL=args.near_cache_ttl)
    manage("migrate", "--noinput", "-v0", env=env)
    manage("seed_demo", "--force", env=env)
    manage("load_shop_geo", "-v0", env=env)
    first_id, count = shop_id_range(env)
    tokens = Path(tempfile.mkdtemp()) / "tokens.txt"
    manage("issue_tokens", "--count", "1000", "--out", str(tokens), env=env)
    shops_env = {**os.environ, "SHOP_FIRST_ID": str(first_id), "SHOP_COUNT": str(count)}
    runs: dict[str, tuple[str, dict[str, str]]] = {
        "bare Django JSON view `/api/ping`": ("ping.lua", dict(os.environ)),
        "`GET /api/shops/{id}` cache hit, anonymous": ("shop_detail.lua", shops_env),
        "`GET /api/shops/{id}` cache hit, logged in": (
            "shop_detail.lua",
            {**shops_env, "TOKENS_FILE": str(tokens)},
        ),
    }
    results: dict[str, list[WrkResult]] = {name: [] for name in runs}
    with Server(args.server, args.workers, args.port, env, args.threads) as server:
        for shop_id in range(first_id, first_id + count):  # warm every cache entry
            urllib.request.urlopen(f"{server.url}/api/shops/{shop_id}").read()
        run_wrk(server.url, duration="3s", connections=args.connections, script=_lua("ping.lua"))
        for _ in range(args.rounds):  # interleaved, so drift hits every row alike
            for name, (script, script_env) in runs.items():
                results[name].append(
                    run_wrk(
                        server.url,
                        duration=args.duration,
                        connections=args.connections,
                        script=_lua(script),
                        env=script_env,
                    )
                )
    medians = {name: median_result(rounds) for name, rounds in results.items()}
    baseline = medians["bare Django JSON view `/api/ping`"]
    print(
        f"\nserver={args.server} workers={args.workers} threads={args.threads} "
        f"near_cache_ttl={args.near_cache_ttl} "
        f"wrk -t2 -c{args.connections} -d{args.duration}, {args.rounds} rounds, medians\n"
    )
    print("| endpoint | req/s | p50 ms | p99 ms | throughput ratio | p50 ratio | p99 ratio |")
    print("|---|---|---|---|---|---|---|")
    for name, result in medians.items():
        print(table_row(name, result, baseline))
    failures = sum(r.non_2xx + r.errors for r in medians.values())
    if failures:
        sys.exit(f"{failures} non-2xx responses or socket errors: the figures are not valid")


def _lua(name: str) -> str:
    return str(WRK_DIR / name)


def table_row(name: str, result: WrkResult, baseline: WrkResult) -> str:
    return (
        f"| {name} | {result.requests_per_second:.0f} | {result.p50_ms:.2f} | "
        f"{result.p99_ms:.2f} | {result.requests_per_second / baseline.requests_per_second:.2f} | "
        f"{result.p50_ms / baseline.p50_ms:.2f} | {result.p99_ms / baseline.p99_ms:.2f} |"
    )


def shop_id_range(env: dict[str, str]) -> tuple[int, int]:
    code = (
        "from shops.models import Shop; ids = list(Shop.objects.values_list('id', flat=True)); "
        "print(min(ids), len(ids), max(ids))"
    )
    first, count, last = map(int, manage_output("shell", "-v0", "-c", code, env=env).split())
    assert last - first + 1 == count, "demo shop ids should be contiguous"
    return first, count


if __name__ == "__main__":
    main()
