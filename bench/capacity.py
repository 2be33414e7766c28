"""Per-core capacity: CPU each tier spends per request, for docs/scaling.md.

    DATABASE_URL=mysql://... .venv/bin/python bench/capacity.py [--duration 10s]

`make bench-capacity` starts MariaDB and Redis and runs it. Throughput on this 2-core
box is shared by wrk, the server, Redis and MariaDB, so requests per second say little
about a bigger machine; CPU seconds per request, read per tier from /proc and from
Redis's own INFO, do: 1 / (CPU per request) is what one core of that tier serves.
Prints Markdown for docs/scaling.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from harness import WRK_DIR, Server, WrkResult, manage, manage_output, run_wrk, server_env
from seckill import DrainWorker, make_sale, redis_cli
from shops_bench import shop_id_range

TICKS = os.sysconf("SC_CLK_TCK")


def _cpu_ticks(stat: Path) -> tuple[int, int]:
    """(process group, user + system ticks of all its threads) from /proc/<pid>/stat."""
    fields = stat.read_text().rsplit(")", 1)[1].split()  # after the command name
    return int(fields[2]), int(fields[11]) + int(fields[12])


def group_cpu_seconds(pgid: int) -> float:
    """User + system CPU of every live process in a process group."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            group, ticks = _cpu_ticks(entry / "stat")
        except OSError:
            continue  # exited meanwhile
        if group == pgid:
            total += ticks
    return total / TICKS


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU of one process, all its threads."""
    return _cpu_ticks(Path(f"/proc/{pid}/stat"))[1] / TICKS


def mariadb_cpu_seconds() -> float:
    pids = subprocess.run(["pgrep", "-x", "mariadbd"], capture_output=True, text=True).stdout
    return sum(process_cpu_seconds(int(pid)) for pid in pids.split())


def redis_info(section: str) -> dict[str, str]:
    lines = redis_cli("info", section).splitlines()
    return dict(line.split(":", 1) for line in lines if ":" in line)


@dataclass
class Reading:
    web: float
    redis: float
    database: float
    commands: int

    @classmethod
    def take(cls, web_pgid: int) -> Reading:
        cpu, stats = redis_info("cpu"), redis_info("stats")
        return cls(
            web=group_cpu_seconds(web_pgid),
            redis=float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"]),
            database=mariadb_cpu_seconds(),
            commands=int(stats["total_commands_processed"]),
        )

    def per(self, earlier: Reading, count: float) -> dict[str, float]:
        return {
            "web_ms": (self.web - earlier.web) * 1000 / count,
            "redis_ms": (self.redis - earlier.redis) * 1000 / count,
            "db_ms": (self.database - earlier.database) * 1000 / count,
            "redis_cmds": (self.commands - earlier.commands) / count,
        }


def measured(server: Server, duration: str, connections: int, script: str, env: dict) -> tuple:
    before = Reading.take(server.process.pid)
    result: WrkResult = run_wrk(
        server.url, duration=duration, connections=connections, script=script, env=env
    )
    return result, Reading.take(server.process.pid).per(before, result.requests)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", default="10s")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--tokens", type=int, default=20000)
    parser.add_argument("--backlog", type=int, default=20000)
    parser.add_argument("--port", type=int, default=8079)
    args = parser.parse_args()

    env = server_env()
    manage("migrate", "--noinput", "-v0", env=env)
    manage("seed_demo", "--force", env=env)
    manage("reconcile_seckill", "--fix", env=env)  # the shards verified (vouchers/sale/heal.py)
    manage("load_shop_geo", "-v0", env=env)
    first_id, count = shop_id_range(env)
    tokens = Path(tempfile.mkdtemp()) / "tokens.txt"
    manage("issue_tokens", "--count", str(args.tokens), "--out", str(tokens), env=env)
    sale = make_sale(env, stock=10_000_000)
    shops = {**os.environ, "SHOP_FIRST_ID": str(first_id), "SHOP_COUNT": str(count)}
    runs = {
        "bare Django view `/api/ping`": ("ping.lua", dict(os.environ)),
        "the same plus one Redis PING `/api/ping/redis`": (
            "ping.lua",
            {**os.environ, "PING_PATH": "/api/ping/redis"},
        ),
        "`GET /api/shops/{id}`, anonymous (near cache)": ("shop_detail.lua", shops),
        "`GET /api/shops/{id}`, logged in": (
            "shop_detail.lua",
            {**shops, "TOKENS_FILE": str(tokens)},
        ),
        "`POST /api/vouchers/{id}/seckill`": (
            "seckill.lua",
            {**os.environ, "VOUCHER_ID": str(sale), "TOKENS_FILE": str(tokens)},
        ),
    }
    rows = []
    with Server("granian", 2, args.port, env, 4) as server:
        for shop_id in range(first_id, first_id + count):
            urllib.request.urlopen(f"{server.url}/api/shops/{shop_id}").read()
        warm_up = str(WRK_DIR / "ping.lua")
        run_wrk(server.url, duration="3s", connections=args.connections, script=warm_up)
        for name, (script, script_env) in runs.items():
            result, cost = measured(
                server, args.duration, args.connections, str(WRK_DIR / script), script_env
            )
            rows.append((name, result, cost))

    # The drain: a backlog accepted with no worker running, then persisted by one worker.
    backlog_sale = make_sale(env, stock=args.backlog)
    manage(
        "shell",
        "-v0",
        "-c",
        "from accounts.management.commands.issue_tokens import load_test_phones; "
        "from accounts.models import User; from vouchers.sale.seckill import voucher_seckill; "
        f"ids = User.objects.filter(phone__in=load_test_phones({args.backlog}, staff=False))"
        ".values_list('id', flat=True); "
        f"[voucher_seckill(user_id=u, voucher_id={backlog_sale}) for u in ids]",
        env=env,
    )
    # Progress is read from the shard's pending hash (orders accepted, not yet persisted):
    # a Redis HLEN is instant, where asking the database would start Django each time.
    pending_key = json.loads(
        manage_output(
            "shell",
            "-v0",
            "-c",
            "import json; from vouchers import keys; from vouchers.sale import shard; "
            f"print(json.dumps(keys.seckill_pending(shard.shard_of({backlog_sale}))))",
            env=env,
        )
    )

    def pending() -> int:
        return int(redis_cli("hlen", pending_key))

    worker = DrainWorker(env)
    while pending() >= args.backlog:  # measured from the first persisted batch on
        time.sleep(0.01)
    before, first, started = Reading.take(worker.process.pid), pending(), time.monotonic()
    while (left := pending()) > 0 and time.monotonic() < started + 300:
        time.sleep(0.05)
    ended = time.monotonic()
    drained = first - left
    drain = Reading.take(worker.process.pid).per(before, max(drained, 1))
    drain_rate = drained / (ended - started)
    worker.stop()

    print(
        f"\ngranian 2 workers x 4 threads, wrk -t2 -c{args.connections} -d{args.duration}; "
        "CPU per request by tier (web, MariaDB: /proc; Redis: INFO)\n"
    )
    print(
        "| request | req/s here | web CPU ms/req | → req/s per web core | Redis CPU µs/req "
        "| → req/s per Redis core | Redis commands/req | DB CPU ms/req |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name, result, cost in rows:
        print(
            f"| {name} | {result.requests_per_second:,.0f} | {cost['web_ms']:.3f} | "
            f"{1000 / cost['web_ms']:,.0f} | {cost['redis_ms'] * 1000:.1f} | "
            f"{1000 / max(cost['redis_ms'], 1e-9):,.0f} | {cost['redis_cmds']:.2f} | "
            f"{cost['db_ms']:.3f} |"
        )
    print(
        f"| drain, one worker, per order persisted | {drain_rate:,.0f} orders/s | "
        f"{drain['web_ms']:.3f} | {1000 / drain['web_ms']:,.0f} orders/s | "
        f"{drain['redis_ms'] * 1000:.1f} | {1000 / max(drain['redis_ms'], 1e-9):,.0f} | "
        f"{drain['redis_cmds']:.2f} | {drain['db_ms']:.3f} |"
    )


if __name__ == "__main__":
    main()
