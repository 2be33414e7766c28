"""The flash sale under load: POST /api/vouchers/{id}/seckill against the bare-view
baseline, the same with the sale's challenge on (decision 500), the Redis ceiling
(redis-benchmark EVALSHA of seckill.lua), the drain rate into the database and the
accept-to-persist lag.

    DATABASE_URL=mysql://... .venv/bin/python bench/seckill.py [--duration 10s] [--tokens 20000]

`make bench-seckill` starts MariaDB and Redis and runs it. Prints Markdown for
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from harness import (
    METRICS_TOKEN,
    ROOT,
    VENV_BIN,
    WRK_DIR,
    Server,
    WrkResult,
    manage,
    manage_output,
    median_result,
    run_wrk,
    server_env,
)
from prometheus_client.parser import text_string_to_metric_families

SALE_STOCK = 10_000_000  # every timed sale's stock: never sold out within a run
BENCH_SHARD = 9  # the ceiling run's keys: a shard no real sale uses (4 shard bits hold it)


def django(code: str, env: dict[str, str]) -> str:
    return manage_output("shell", "-v0", "-c", code, env=env).strip()


def metrics_agree(url: str, env: dict[str, str], voucher_id: int) -> tuple[bool, str]:
    """Whether a sale's accepted count as `/metrics` serves it and as the admin's live sale
    page reads it (vouchers.sale.gauges.sale_snapshot, over the same multiprocess files) both
    equal its orders in the database once drained, and the three numbers. (Not the stock
    wrk saw go: requests in flight when wrk stops are still served and counted.)"""
    sold = persisted(env, voucher_id)
    request = urllib.request.Request(
        f"{url}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        exposition = response.read().decode()
    wanted = {"voucher": str(voucher_id), "verdict": "accepted"}
    scraped = sum(
        sample.value
        for family in text_string_to_metric_families(exposition)
        for sample in family.samples
        if sample.name == "dianping_seckill_requests_total" and sample.labels == wanted
    )
    admin = int(
        django(
            "from vouchers.sale.gauges import sale_snapshot; from vouchers.models import Voucher; "
            f"print(sale_snapshot(Voucher.objects.get(pk={voucher_id})).accepted)",
            env,
        )
    )
    agree = scraped == admin == sold
    verb = "=" if agree else "DISAGREE:"
    return agree, f"{sold} orders {verb} {scraped:.0f} on /metrics, {admin} on the admin's page"


def make_sale(env: dict[str, str], stock: int, challenge: bool = False) -> int:
    return int(
        django(
            "from datetime import timedelta; from toolkit import clock; "
            "from shops.models import Shop; from vouchers import services; "
            "v = services.voucher_create(data={'shop': Shop.objects.first(), 'title': 'bench', "
            "'pay_value': 1, 'actual_value': 2, 'type': 'seckill', "
            f"'stock': {stock}, 'begin_time': clock.now() - timedelta(minutes=1), "
            f"'end_time': clock.now() + timedelta(days=1), 'challenge': {challenge}}}); "
            "print(v.id)",
            env,
        )
    )


def project_facts(env: dict[str, str], voucher_ids: list[int]) -> dict[str, Any]:
    """Key names and the seckill script as the project spells them, asked from the
    project itself so the benchmark cannot drift from it."""
    code = f"""
import json, time
from toolkit.redis import ids
from vouchers import keys
from vouchers.sale import seckill, shard
s = {BENCH_SHARD}
now = int(time.time())
bench_keys = seckill.SaleKeys(
    stock_key=keys.seckill_stock(s, s), buyers_key=keys.seckill_buyers(s, s),
    orders_key=keys.seckill_orders(s), pending_key=keys.seckill_pending(s),
    counter_key=keys.seckill_id_counter(s, "bench"),
    funnel_key=keys.seckill_funnel(s, "bench"), live_key=keys.seckill_live(s),
    challenge_key=keys.seckill_challenge(s, s, "bench"),
)
print(json.dumps({{
    "stock_keys": {{str(v): shard.stock_key(v) for v in {voucher_ids!r}}},
    "lag_keys": {{str(v): keys.seckill_lag(shard.shard_of(v)) for v in {voucher_ids!r}}},
    "script": seckill._SECKILL.source,
    "bench_keys": bench_keys._asdict(),
    # A random buyer per call, a sale open for the next hour, a funnel that never fills.
    "bench_args": [str(a) for a in seckill.SaleArgs(
        user="__rand_int__", voucher=s, now=now, begin_at=now - 60, end_at=now + 3600,
        shard=s, shard_bits=4, id_epoch=ids.ID_EPOCH, counter_ttl=60,
        funnel_capacity=10**15, funnel_leak_per_ms="1", now_ms=now * 1000,
        charge_funnel="1", token_ttl=0, challenge_digest="",
    )],
}}))
"""
    return json.loads(django(code, env))


def persisted(env: dict[str, str], voucher_id: int) -> int:
    code = (
        "from vouchers.models import VoucherOrder; "
        f"print(VoucherOrder.objects.filter(voucher_id={voucher_id}).count())"
    )
    return int(django(code, env))


def wait_persisted(
    env: dict[str, str],
    stock_keys: dict[str, str],
    voucher_ids: list[int],
    timeout: float = 180,
    port: str | None = None,
) -> None:
    """Until the drain has stored every order Redis accepted for these sales, or the
    timeout; check_books then tells whether anything is missing."""
    deadline = time.monotonic() + timeout
    for voucher_id in voucher_ids:
        key = stock_keys[str(voucher_id)]
        while time.monotonic() < deadline:
            if persisted(env, voucher_id) + int(redis_cli("get", key, port=port)) >= SALE_STOCK:
                break
            time.sleep(0.5)


def check_books(
    env: dict[str, str], stock_key: str, voucher_id: int, port: str | None = None
) -> tuple[int, int, int]:
    """sold (orders in the database) + remaining (Redis stock) must equal the initial
    stock once drained: no oversell, nothing accepted lost. Exits loudly otherwise."""
    sold = persisted(env, voucher_id)
    remaining = int(redis_cli("get", stock_key, port=port))
    if sold + remaining != SALE_STOCK:
        sys.exit(f"voucher {voucher_id}: sold {sold} + remaining {remaining} != {SALE_STOCK}")
    return voucher_id, sold, remaining


def usec_per_call(command: str) -> str:
    """Redis's own time per call of `command` since the last CONFIG RESETSTAT (the
    script's execution alone, without the round trip around it); "n/a" if not called."""
    stats = redis_cli("info", "commandstats")
    found = re.search(rf"cmdstat_{command}:.*?usec_per_call=([\d.]+)", stats)
    return f"{float(found.group(1)):.1f} µs" if found else "n/a"


def redis_cli(*args: str, port: str | None = None) -> str:
    """A redis-cli command to the bench Redis (`port`: another, the sale's own)."""
    port = port or os.environ.get("REDIS_PORT", "6390")
    return subprocess.run(
        ["redis-cli", "-p", port, *args], capture_output=True, text=True, check=True
    ).stdout.strip()


class ReplicaRedis:
    """A replica of the bench Redis (for SECKILL_DURABILITY=replica), in sync on entry."""

    def __enter__(self) -> ReplicaRedis:
        self.port = "6397"
        master = os.environ.get("REDIS_PORT", "6390")
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                self.port,
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--dir",
                tempfile.mkdtemp(),
                "--appendonly",
                "no",
                "--replicaof",
                "127.0.0.1",
                master,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while "master_link_status:up" not in self._info() and time.monotonic() < deadline:
            time.sleep(0.2)
        return self

    def _info(self) -> str:
        return subprocess.run(
            ["redis-cli", "-p", self.port, "info", "replication"], capture_output=True, text=True
        ).stdout

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


class DrainWorker:
    """A real Celery worker running one long drain task (as beat would keep one running)."""

    def __init__(self, env: dict[str, str]) -> None:
        command = [
            str(VENV_BIN / "celery"),
            "-A",
            "dianping",
            "worker",
            "--pool",
            "solo",
            "--loglevel",
            "WARNING",
            "--without-heartbeat",
            "--without-mingle",
            "--without-gossip",
        ]
        worker_env = {**env, "SECKILL_DRAIN_LOOP_SECONDS": "600"}
        self.process = subprocess.Popen(command, cwd=ROOT, env=worker_env, start_new_session=True)
        django("from vouchers.tasks import drain_seckill_orders as d; d.delay()", env)

    def stop(self) -> None:
        os.killpg(self.process.pid, 9)
        self.process.wait(timeout=30)


def lag_histogram(lag_key: str) -> dict[str, int]:
    raw = redis_cli("hgetall", lag_key).split()
    return {raw[i]: int(raw[i + 1]) for i in range(0, len(raw), 2)}


def lag_percentile(histogram: dict[str, int], share: float) -> str:
    order = sorted(histogram, key=lambda k: float("inf") if k == "le_inf" else int(k[3:]))
    total, seen = sum(histogram.values()), 0
    for bucket in order:
        seen += histogram[bucket]
        if seen >= share * total:
            return "> 60 s" if bucket == "le_inf" else f"≤ {int(bucket[3:])} ms"
    return "n/a"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--duration", default="10s")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--tokens", type=int, default=20000)
    parser.add_argument("--backlog", type=int, default=20000, help="orders for the drain-rate run")
    parser.add_argument("--port", type=int, default=8077)
    parser.add_argument(
        "--rounds", type=int, default=3, help="bare view, floor and sale, alternated; medians"
    )
    parser.add_argument(
        "--admission-rate",
        type=float,
        default=0.0,
        help="SECKILL_ADMISSION_RATE of the servers: grabs/s each process lets through per "
        "voucher, the rest 429 without Redis (0: off, the default). Its 429s count among "
        "the sale's requests: compare runs with the same setting only",
    )
    parser.add_argument(
        "--admission-burst", type=int, default=0, help="SECKILL_ADMISSION_BURST (0: a second)"
    )
    args = parser.parse_args()

    env = server_env(
        SECKILL_ADMISSION_RATE=str(args.admission_rate),
        SECKILL_ADMISSION_BURST=str(args.admission_burst),
    )
    print(f"database: {env.get('DATABASE_URL', 'sqlite (default)')}")
    if args.admission_rate:
        print(f"admission: {args.admission_rate:g} grabs/s per process per voucher")
    manage("migrate", "--noinput", "-v0", env=env)
    manage("seed_demo", "--force", env=env)
    manage("reconcile_seckill", "--fix", env=env)  # the shards verified: no worker runs yet
    tokens = Path(tempfile.mkdtemp()) / "tokens.txt"
    manage("issue_tokens", "--count", str(args.tokens), "--out", str(tokens), env=env)
    # A fresh sale per round, so that every round's first attempts are buyers'.
    round_sales = [make_sale(env, stock=SALE_STOCK) for _ in range(args.rounds)]
    # The same rounds in the other modes (SECKILL_DURABILITY): `none`, then `replica` on a
    # server of its own, with a replica of the bench Redis confirming every order.
    none_sales = [make_sale(env, stock=SALE_STOCK) for _ in range(args.rounds)]
    replica_sales = [make_sale(env, stock=SALE_STOCK) for _ in range(args.rounds)]
    # The same rounds' sale with its challenge on, each buyer answering once (the answers
    # issued just before each run by `issue_challenges`, the bench's own door to them).
    challenge_sales = [make_sale(env, stock=SALE_STOCK, challenge=True) for _ in range(args.rounds)]
    warm_sale = make_sale(env, stock=SALE_STOCK)  # the warm-up's, so no round starts cold
    lag_sale = make_sale(env, stock=SALE_STOCK)
    # The latency runs' sales: a fresh one per share, so every first attempt is a buyer's.
    paced_sales = {share: make_sale(env, stock=SALE_STOCK) for share in (50, 70)}
    every_sale = [
        warm_sale,
        *round_sales,
        *challenge_sales,
        *none_sales,
        *replica_sales,
        *paced_sales.values(),
        lag_sale,
    ]
    facts = project_facts(env, every_sale)
    stock_keys = facts["stock_keys"]
    lag_key = facts["lag_keys"][str(lag_sale)]
    redis_cli("del", lag_key)

    # 1. HTTP: rounds of the baseline, the floor and the sale alone (the request path's own
    #    cost), alternated so that the VM's drift hits all three alike; then the sale
    #    again with a real drain worker persisting alongside (for the lag).
    ping = str(WRK_DIR / "ping.lua")

    def buy(
        voucher_id: int, duration: str = args.duration, port: str | None = None, **pace: str
    ) -> tuple[WrkResult, int]:
        key = stock_keys[str(voucher_id)]
        before = int(redis_cli("get", key, port=port))
        result = run_wrk(
            server.url,
            duration=duration,
            connections=args.connections,
            script=str(WRK_DIR / "seckill.lua"),
            env={**os.environ, "VOUCHER_ID": str(voucher_id), "TOKENS_FILE": str(tokens), **pace},
        )
        return result, before - int(redis_cli("get", key, port=port))

    def ping_at(path: str, duration: str = args.duration, **pace: str) -> WrkResult:
        return run_wrk(
            server.url,
            duration=duration,
            connections=args.connections,
            script=ping,
            env={**os.environ, "PING_PATH": path, **pace},
        )

    def paced(rate: float, run: Callable[..., WrkResult]) -> WrkResult:
        """`run` with its connections paced to `rate` requests/s in all. wrk's delay() is a
        pause after each reply, so a short probe first measures how long replies take."""
        period_ms = args.connections * 1000 / rate
        probe = run(duration="3s", DELAY_MS=str(int(period_ms)))
        reply_ms = max(args.connections * 1000 / probe.requests_per_second - int(period_ms), 0)
        return run(DELAY_MS=str(max(0, round(period_ms - reply_ms))))

    latency: dict[int, tuple[WrkResult, WrkResult]] = {}
    with Server("granian", args.workers, args.port, env, args.threads) as server:
        # Warm both paths: every worker thread's own Redis connection, the script, caches.
        run_wrk(server.url, duration="3s", connections=args.connections, script=ping)
        buy(warm_sale, duration="3s")
        redis_cli("config", "resetstat")
        redis_cli("config", "set", "appendfsync", "always")  # SECKILL_DURABILITY=fsync
        rounds, none_rounds, challenge_rounds = [], [], []
        for voucher_id, none_sale, challenge_sale in zip(
            round_sales, none_sales, challenge_sales, strict=True
        ):
            rounds.append((ping_at("/api/ping"), ping_at("/api/ping/redis"), buy(voucher_id)))
            answers = Path(tempfile.mkdtemp()) / "challenges.txt"
            manage(
                "issue_challenges",
                *("--voucher", str(challenge_sale), "--tokens", str(tokens)),
                *("--out", str(answers)),
                env=env,
            )
            challenge_rounds.append(buy(challenge_sale, CHALLENGES_FILE=str(answers))[0])
            redis_cli("config", "set", "appendfsync", "everysec")  # SECKILL_DURABILITY=none
            none_rounds.append(buy(none_sale)[0])
            redis_cli("config", "set", "appendfsync", "always")
        inside_redis = {command: usec_per_call(command) for command in ("evalsha", "ping")}
        base = median_result([bare for bare, _, _ in rounds])
        floor = median_result([floor for _, floor, _ in rounds])
        alone = median_result([sale for _, _, (sale, _) in rounds])
        alone_none = median_result(none_rounds)
        alone_challenge = median_result(challenge_rounds)
        accepted = sum(units for _, _, (_, units) in rounds)
        # Latency at a share of the sale's peak: the bare view and the sale offered the
        # same rate.
        for share, voucher_id in paced_sales.items():
            rate = alone.requests_per_second * share / 100
            bare_paced = paced(rate, lambda **kw: ping_at("/api/ping", **kw))
            sale_paced = paced(rate, lambda voucher_id=voucher_id, **kw: buy(voucher_id, **kw)[0])
            latency[share] = (bare_paced, sale_paced)
        worker = DrainWorker(env)
        wait_persisted(env, stock_keys, every_sale[:-1])  # the backlog of the runs so far
        redis_cli("del", lag_key)
        alongside, _ = buy(lag_sale)
        wait_persisted(env, stock_keys, [lag_sale])
        metrics_agreed, agreement = metrics_agree(server.url, env, lag_sale)
    worker.stop()
    if not metrics_agreed:
        sys.exit(f"metrics of sale {lag_sale}: {agreement}")
    lags = lag_histogram(lag_key)  # before other sales of the shard are drained below
    redis_cli("config", "set", "appendfsync", "everysec")  # replica mode needs no fsync
    with (
        ReplicaRedis() as _,
        Server(
            "granian",
            args.workers,
            args.port,
            {**env, "SECKILL_DURABILITY": "replica"},
            args.threads,
        ) as server,
    ):
        buy(warm_sale, duration="3s")
        replica_rounds = [(ping_at("/api/ping"), buy(v)[0]) for v in replica_sales]
    replica_base = median_result([bare for bare, _ in replica_rounds])
    alone_replica = median_result([sale for _, sale in replica_rounds])
    redis_cli("config", "set", "appendfsync", "everysec")  # as make run's (its sale has 6392)
    worker = DrainWorker(env)
    wait_persisted(env, stock_keys, [*none_sales, *replica_sales])
    worker.stop()
    # `fsync` as make run deploys it: the sale on its own Redis at `always`
    # (SECKILL_REDIS_URL, scripts/bench.sh), the token's refresh on this one.
    own_rounds, own_books = [], []
    if sale_url := os.environ.get("BENCH_SALE_REDIS_URL"):
        own_env, own_port = {**env, "SECKILL_REDIS_URL": sale_url}, str(urlparse(sale_url).port)
        redis_cli("config", "set", "appendfsync", "always", port=own_port)
        own_sales = [make_sale(own_env, stock=SALE_STOCK) for _ in range(args.rounds + 1)]
        manage_output("reconcile_seckill", "--fix", env=own_env)  # its shards verified
        stock_keys |= project_facts(env, own_sales)["stock_keys"]
        with Server("granian", args.workers, args.port, own_env, args.threads) as server:
            buy(own_sales[0], duration="3s", port=own_port)  # the warm-up
            own_rounds = [(ping_at("/api/ping"), buy(v, port=own_port)[0]) for v in own_sales[1:]]
        worker = DrainWorker(own_env)
        wait_persisted(own_env, stock_keys, own_sales, port=own_port)
        worker.stop()
        own_books = [check_books(own_env, stock_keys[str(v)], v, port=own_port) for v in own_sales]
    books = [check_books(env, stock_keys[str(v)], v) for v in every_sale]

    # 2. The Redis ceiling: the same script, straight from redis-benchmark.
    sha = redis_cli("script", "load", facts["script"])
    named_keys, script_args = facts["bench_keys"], facts["bench_args"]
    bench_keys = list(named_keys.values())  # in SaleKeys' order (JSON keeps it)
    redis_cli("set", named_keys["stock_key"], "100000000")
    run_id = re.search(r"run_id:(\w+)", redis_cli("info", "server")).group(1)
    # The shard's live marker (vouchers/sale/heal.py).
    redis_cli("set", named_keys["live_key"], run_id)
    ceiling = subprocess.run(
        [
            "redis-benchmark",
            "-p",
            os.environ.get("REDIS_PORT", "6390"),
            "-n",
            "200000",
            "-c",
            "50",
            "-r",
            "100000000",
            "-q",
            "evalsha",
            sha,
            str(len(bench_keys)),
            *bench_keys,
            *script_args,
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    redis_cli("del", *bench_keys)
    evalsha_rps = float(re.search(r"([\d.]+) requests per second", ceiling).group(1))

    # 3. Drain rate: a backlog accepted while no worker runs, then drained by one worker.
    backlog_sale = make_sale(env, stock=args.backlog)
    django(
        "from accounts.management.commands.issue_tokens import load_test_phones; "
        "from accounts.models import User; from vouchers.sale.seckill import voucher_seckill; "
        f"ids = User.objects.filter(phone__in=load_test_phones({args.backlog}, staff=False))"
        ".values_list('id', flat=True); "
        f"[voucher_seckill(user_id=u, voucher_id={backlog_sale}) for u in ids]",
        env,
    )
    started = time.monotonic()
    worker = DrainWorker(env)
    first: tuple[float, int] | None = None  # (when, how many) once the worker is draining
    while (done := persisted(env, backlog_sale)) < args.backlog:
        if first is None and done:
            first = (time.monotonic(), done)
        if time.monotonic() - started > 300:
            break
        time.sleep(0.2)
    ended = time.monotonic()
    worker.stop()
    drained = persisted(env, backlog_sale)
    drain_seconds = ended - started
    # None when one 0.2 s poll saw the whole backlog persisted: too fast to split out.
    steady = (drained - first[1]) / (ended - first[0]) if first and first[1] < drained else None

    print(
        f"\ngranian {args.workers} workers x {args.threads} threads, "
        f"wrk -t2 -c{args.connections} -d{args.duration}, {args.tokens} rotating tokens\n"
    )
    print("| measure | value |")
    print("|---|---|")
    print(
        f"| bare Django view `/api/ping` | {base.requests_per_second:.0f} req/s, "
        f"p50 {base.p50_ms:.2f} ms, p99 {base.p99_ms:.2f} ms |"
    )
    print(
        f"| the same plus one Redis PING `/api/ping/redis` | {floor.requests_per_second:.0f} "
        f"req/s ({floor.requests_per_second / base.requests_per_second:.2f} x baseline), "
        f"p50 {floor.p50_ms:.2f} ms, p99 {floor.p99_ms:.2f} ms |"
    )
    for label, result in (("", alone), (", drain running alongside", alongside)):
        print(
            f"| `POST /api/vouchers/{{id}}/seckill`{label} | {result.requests_per_second:.0f} "
            f"req/s (**{result.requests_per_second / base.requests_per_second:.2f}** x "
            f"baseline, {result.requests_per_second / floor.requests_per_second:.2f} x the "
            f"Redis floor), p50 {result.p50_ms:.2f} ms, "
            f"p99 {result.p99_ms:.2f} ms |"
        )
    print(
        f"| the same, the sale's challenge on (each buyer answers once) | "
        f"{alone_challenge.requests_per_second:.0f} req/s "
        f"(**{alone_challenge.requests_per_second / alone.requests_per_second:.2f}** x the "
        f"sale without it, {alone_challenge.requests_per_second / base.requests_per_second:.2f}"
        f" x baseline), p50 {alone_challenge.p50_ms:.2f} ms, p99 {alone_challenge.p99_ms:.2f} ms |"
    )
    total = int(alone.requests_per_second * float(args.duration.rstrip("s"))) * args.rounds
    print(
        f"| accepted / rejected (409, 429), sale alone | {accepted} / ~{max(total - accepted, 0)} |"
    )
    print(
        "| each round: sale ÷ bare view, sale ÷ floor | "
        + ", ".join(
            f"{sale.requests_per_second / bare.requests_per_second:.2f} / "
            f"{sale.requests_per_second / floor.requests_per_second:.2f}"
            for bare, floor, (sale, _) in rounds
        )
        + " |"
    )
    print(
        f"| inside Redis, per call: the sale's EVALSHA / the floor's PING | "
        f"{inside_redis['evalsha']} / {inside_redis['ping']} |"
    )
    print(
        f"| accept-to-persist lag (drain running alongside) | p50 {lag_percentile(lags, 0.5)}, "
        f"p99 {lag_percentile(lags, 0.99)} ({sum(lags.values())} orders) |"
    )
    once_draining = (
        "all persisted within one 0.2 s poll, steady rate not split out"
        if steady is None
        else f"{steady:.0f} orders/s once draining"
    )
    print(
        f"| drain rate, backlog of {args.backlog} | {once_draining}; "
        f"{drained / drain_seconds:.0f} orders/s ({drained} in {drain_seconds:.1f} s) "
        "counting the worker's start-up |"
    )
    print(f"| `redis-benchmark` EVALSHA seckill.lua, 50 clients | {evalsha_rps:.0f} req/s |")
    modes = [
        ("fsync (appendfsync always)", alone, base),
        ("none (appendfsync everysec)", alone_none, base),
        ("replica (WAIT 1 after each call, everysec)", alone_replica, replica_base),
    ]
    if own_rounds:
        modes.append(
            (
                "fsync on the sale's own Redis (SECKILL_REDIS_URL: token, then sale)",
                median_result([sale for _, sale in own_rounds]),
                median_result([bare for bare, _ in own_rounds]),
            )
        )
    books += own_books
    for mode, result, bare in modes:
        print(
            f"| sale alone, SECKILL_DURABILITY={mode} | {result.requests_per_second:.0f} req/s "
            f"(**{result.requests_per_second / bare.requests_per_second:.2f}** x its run's "
            f"bare view), p50 {result.p50_ms:.2f} ms, p99 {result.p99_ms:.2f} ms |"
        )
    print(f"| the sale alongside the drain, counted three ways | {agreement} |")
    print(
        "| sold + remaining = initial, every sale of the run | "
        + ", ".join(f"{v}: {sold} + {left}" for v, sold, left in books)
        + " |"
    )

    def spread(result: WrkResult) -> str:
        return f"{result.p50_ms:.2f} / {result.p99_ms:.2f} / {result.p999_ms:.2f} ms"

    print(
        "\n| offered (share of the sale's peak) | bare view: req/s; p50 / p99 / p99.9 "
        "| sale: req/s; p50 / p99 / p99.9 | sale p99 / bare p99 |"
    )
    print("|---|---|---|---|")
    for share, (bare_paced, sale_paced) in latency.items():
        print(
            f"| {share} % ({alone.requests_per_second * share / 100:.0f} req/s) "
            f"| {bare_paced.requests_per_second:.0f}; {spread(bare_paced)} "
            f"| {sale_paced.requests_per_second:.0f}; {spread(sale_paced)} "
            f"| **{sale_paced.p99_ms / bare_paced.p99_ms:.2f}** |"
        )


if __name__ == "__main__":
    main()
