"""GET /api/shops/{id} (cache hit) against a bare Django JSON view, same server, same run.

    .venv/bin/python bench/shops.py [--server granian|gunicorn] [--workers 2]
        [--rounds 3] [--duration 10s] [--connections 32]

Prints a Markdown table for docs/benchmarks.md. Run `make bench-shops` for the
full setup (Redis, demo data, GEO/Bloom preload).
"""

from __future__ import annotations

import argparse
import os
import urllib.request

from harness import (
    ROOT,
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
    script_env = {**os.environ, "SHOP_FIRST_ID": str(first_id), "SHOP_COUNT": str(count)}

    baseline, target = [], []
    with Server(args.server, args.workers, args.port, env, args.threads) as server:
        for shop_id in range(first_id, first_id + count):  # warm every cache entry
            urllib.request.urlopen(f"{server.url}/api/shops/{shop_id}").read()
        run_wrk(f"{server.url}/api/ping", duration="3s", connections=args.connections)
        for _ in range(args.rounds):
            baseline.append(
                run_wrk(
                    f"{server.url}/api/ping", duration=args.duration, connections=args.connections
                )
            )
            target.append(
                run_wrk(
                    server.url,
                    duration=args.duration,
                    connections=args.connections,
                    script=str(ROOT / "bench" / "wrk" / "shop_detail.lua"),
                    env=script_env,
                )
            )
    base, shop = median_result(baseline), median_result(target)
    print(
        f"\nserver={args.server} workers={args.workers} threads={args.threads} "
        f"near_cache_ttl={args.near_cache_ttl} "
        f"wrk -t2 -c{args.connections} -d{args.duration}, {args.rounds} rounds, medians\n"
    )
    print("| endpoint | req/s | p50 ms | p99 ms | non-2xx | ratio to baseline |")
    print("|---|---|---|---|---|---|")
    print(table_row("bare Django JSON view `/api/ping`", base, base))
    print(table_row("`GET /api/shops/{id}` cache hit", shop, base))


def table_row(name: str, result: WrkResult, baseline: WrkResult) -> str:
    ratio = result.requests_per_second / baseline.requests_per_second
    return (
        f"| {name} | {result.requests_per_second:.0f} | {result.p50_ms:.2f} | "
        f"{result.p99_ms:.2f} | {result.non_2xx} | {ratio:.2f} |"
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
