"""Chaos (issue 23): a production-shaped stack (granian as scripts/web.sh runs it, a
prefork Celery worker and beat, the production settings, `SECKILL_DURABILITY=fsync` on a
Redis of the test's own with `appendfsync always`) sells a flash sale to real HTTP
clients while a part of it is killed with SIGKILL. Each ends with a history check:

- every 200 the sale answered is an order in the database (nothing acknowledged lost);
- database stock + orders = the initial stock (no unit sold twice or lost);
- no user has two orders, and no dead letter holds an order;
- the sale sold out in the end, serving again by itself (no command was run).

Clients retry a 503 (the sale paused while Redis was away or rebuilding), as the
answer's Retry-After asks; any other 5xx fails the test.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from subprocess import Popen
from typing import cast

import pytest
from django.conf import settings
from django.db import connection

from tests import servers
from tests.cluster import ArmedKill, restore_cluster
from tests.factories import BlogFactory, ShopFactory, VoucherFactory
from tests.helpers import PrivateRedis, wait_until
from tests.workers import ROOT, current_database_url, kill, start_celery
from toolkit import clock
from toolkit.redis import keys
from toolkit.redis.client import get_redis
from toolkit.redis.cluster import cluster_client
from vouchers import keys as vouchers_keys
from vouchers.models import Voucher, VoucherOrder
from vouchers.sale import buckets as sale_buckets
from vouchers.sale import shard

pytestmark = pytest.mark.slow

STOCK = 120
BUYERS = 300
CLIENTS = 16
SLOW_BATCH = 4  # orders per drain transaction where a test kills something mid-drain
METRICS = "chaos-metrics-token"


class SuiteCluster:
    """The suite's Redis Cluster (`make test-cluster`) in the part a PrivateRedis plays
    for one Redis: the stack's processes use it as the suite does."""

    url = settings.REDIS_URL
    process = None

    def client(self):
        return get_redis()


def _private(redis: PrivateRedis | SuiteCluster) -> PrivateRedis:
    """The Redis a test kills and starts again: one of its own, never the suite's Cluster."""
    assert isinstance(redis, PrivateRedis)
    return redis


@dataclass
class Stack:
    """Web, worker and beat on a Redis of the test's own (or the test Cluster); `tmp`
    holds their logs."""

    redis: PrivateRedis | SuiteCluster
    env: dict[str, str]
    tmp: Path
    sale_redis: PrivateRedis | SuiteCluster | None = None  # SECKILL_REDIS_URL's, if set
    url: str = ""
    processes: dict[str, Popen] = field(default_factory=dict)

    @property
    def sale(self) -> PrivateRedis | SuiteCluster:
        """The Redis that holds the sale: its own, or the one of everything."""
        return self.sale_redis or self.redis

    def start(self) -> None:
        self.start_web()
        self.start_drain()

    def start_web(self) -> None:
        self.processes["web"], self.url = servers.start_web(
            self.env, workers=2, log=self.tmp / "web.log"
        )

    def start_drain(self, **settings: str) -> None:
        """A worker and beat, which starts its drain tasks; `settings` for the worker."""
        self.start_worker(**settings)
        self.processes["beat"] = start_celery(
            "beat",
            "--loglevel",
            "WARNING",
            "--schedule",
            str(self.tmp / "beat-schedule"),
            env=self.env,
            log=self.tmp / "beat.log",
        )

    def start_worker(self, **settings: str) -> None:
        self.processes["worker"] = start_celery(
            "worker",
            "--pool",
            "prefork",
            "--concurrency",
            "2",
            "--loglevel",
            "WARNING",
            "--without-heartbeat",
            "--without-mingle",
            "--without-gossip",
            env={**self.env, **settings},
            log=self.tmp / "worker.log",
        )

    def stop(self) -> None:
        """After the checks: the worker stops cold (SIGQUIT), as a warm stop would wait
        out a drain run retrying against a Redis the test killed (30 s)."""
        for name, process in self.processes.items():
            if process.poll() is None:
                kill(process, signal.SIGQUIT if name == "worker" else signal.SIGTERM)

    def logs(self) -> str:
        return "\n".join(
            f"--- {log.name}\n{log.read_text(errors='replace')[-4000:]}"
            for log in sorted(self.tmp.glob("*.log"))
        )

    def tokens(self, count: int) -> list[str]:
        out = self.tmp / "tokens.txt"
        servers.manage(self.env, "issue_tokens", "--count", str(count), "--out", str(out))
        return out.read_text().split()


ONE_REDIS, OWN_SALE_REDIS = "one Redis", "the sale on its own Redis"


@pytest.fixture
def stack(request, tmp_path, transactional_db) -> Iterator[Stack]:
    """The stack on a Redis of the test's own (`appendfsync always`); parametrized with
    OWN_SALE_REDIS, the sale on a second one (SECKILL_REDIS_URL), the first at everysec."""
    if settings.REDIS_CLUSTER:  # the same stack as the single-Redis runs: nothing new here
        pytest.skip("a Redis of the test's own: `make test` runs it; the Cluster's is below")
    own_sale_redis = getattr(request, "param", ONE_REDIS) == OWN_SALE_REDIS
    servers_started: list[PrivateRedis] = []
    for name in ("redis", "sale-redis") if own_sale_redis else ("redis",):
        (tmp_path / name).mkdir()
        fsync = "everysec" if own_sale_redis and name == "redis" else "always"
        server = PrivateRedis(tmp_path / name, "--appendfsync", fsync)
        server.start()
        servers_started.append(server)
    main = servers_started[0]
    sale = servers_started[1] if own_sale_redis else None
    env = servers.production_env(
        current_database_url(),
        tmp_path,
        REDIS_URL=main.url,
        SECKILL_REDIS_URL=sale.url if sale else "",
        REDIS_CLUSTER="false",  # a Cluster run's own settings do not apply here
        CELERY_BROKER_URL=f"redis://127.0.0.1:{main.port}/1",
        SECKILL_DURABILITY="fsync",
        SECKILL_DRAIN_BATCH="20",
        HEARTBEAT_INTERVAL="2",  # the stack is known to run within seconds
        LOG_LEVEL="WARNING",
        METRICS_TOKEN=METRICS,
    )
    try:
        yield from _running(Stack(main, env, tmp_path, sale_redis=sale))
    finally:
        for server in servers_started:
            if server.process and server.process.poll() is None:
                server.kill()


@pytest.fixture
def cluster_stack(tmp_path, transactional_db) -> Iterator[Stack]:
    """The stack on the test Cluster, `SECKILL_DURABILITY=replica`, its broker a Redis of
    its own (what its workers leave unacknowledged goes with it); the Cluster is made
    whole again afterwards."""
    (tmp_path / "broker").mkdir()
    broker = PrivateRedis(tmp_path / "broker")
    broker.start()
    env = servers.production_env(
        current_database_url(),
        tmp_path,
        CELERY_BROKER_URL=broker.url,
        SECKILL_DURABILITY="replica",
        # The heal is under test, not the replica's budget: on a CPU-starved host a
        # replica's acknowledgement outlasts production's 200 ms, and every order, kept,
        # is answered 503 (CI runs this test beside busy loops too).
        SECKILL_REPLICA_WAIT_MS="2000",
        SECKILL_DRAIN_BATCH="20",
        HEARTBEAT_INTERVAL="2",  # the stack is known to run within seconds
        LOG_LEVEL="WARNING",
    )
    try:
        yield from _running(Stack(SuiteCluster(), env, tmp_path))
    finally:
        broker.kill()
        restore_cluster()


def _running(running: Stack) -> Iterator[Stack]:
    try:
        yield running
    finally:
        running.stop()
        print(running.logs())  # pytest shows it with a failure


def _open_sale(stack: Stack, buckets: int = 1) -> Voucher:
    """A sale on now, its stock split into `buckets`, loaded into the stack's Redis as
    `make run` loads one."""
    sale = VoucherFactory(stock=STOCK, begin_time=clock.now() - timedelta(minutes=1))
    if buckets > 1:
        sale.sale_shards = ",".join(map(str, sale_buckets.choose_shards(sale.id, buckets)))
        sale.save(update_fields=["sale_shards"])
    servers.manage(stack.env, "reconcile_seckill", "--fix")
    return sale


def _shards(sale_row: Voucher) -> tuple[int, ...]:
    return shard.placement(sale_row.id, sale_row.sale_shards)


@dataclass
class Sale:
    """What the buyers were told."""

    accepted: dict[str, int] = field(default_factory=dict)  # token -> order id
    accepted_at: dict[str, float] = field(default_factory=dict)
    verdicts: dict[str, str] = field(default_factory=dict)  # token -> final refusal code
    paused: int = 0  # 503s, each retried
    server_errors: list[tuple[int, bytes]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    crashed: threading.Event = field(default_factory=threading.Event)  # `at_a_third` ran


def _buy_all(
    url: str,
    voucher_id: int,
    tokens: list[str],
    deadline: float,
    at_a_third: Callable[[], None] | None = None,
) -> tuple[Sale, list]:
    """Every buyer asks until told yes or no (a 503 or 429 is asked again later), from
    CLIENTS threads; returns the outcome and the threads (running: join them).
    `at_a_third` runs in the thread that records the third of the stock sold, before any
    other answer is recorded: a crash lands there however busy the host (a test thread
    polling for it could wake after the rest of the sale)."""
    sale, waiting = Sale(), queue.SimpleQueue[str]()
    for token in tokens:
        waiting.put(token)

    def client() -> None:
        while time.monotonic() < deadline:
            try:
                token = waiting.get_nowait()
            except queue.Empty:
                return
            try:
                status, _, body = servers.call(
                    f"{url}/api/vouchers/{voucher_id}/seckill",
                    "POST",
                    Authorization=f"Bearer {token}",
                )
            except OSError as exc:  # a reset or a refused connection: the server failed
                status, body = 0, repr(exc).encode()
            with sale.lock:
                if status == 200:
                    sale.accepted[token] = int(json.loads(body)["order_id"])
                    sale.accepted_at[token] = time.monotonic()
                    if len(sale.accepted) == STOCK // 3 and at_a_third is not None:
                        at_a_third()
                        sale.crashed.set()
                elif status in (429, 503):
                    sale.paused += status == 503
                    waiting.put(token)
                elif status >= 500 or status == 0:
                    sale.server_errors.append((status, body))
                else:
                    sale.verdicts[token] = json.loads(body)["code"]
            if status in (429, 503):
                time.sleep(0.05)  # not a synchronisation: a client's back-off before asking again

    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    for thread in threads:
        thread.start()
    return sale, threads


def _join(threads: list[threading.Thread]) -> None:
    for thread in threads:
        thread.join(timeout=300)


def _check_history(stack: Stack, sale_row: Voucher, sale: Sale) -> None:
    """The checks of the module's docstring, once the drain has settled."""
    assert not sale.server_errors, sale.server_errors[:3]
    acknowledged = set(sale.accepted.values())

    def persisted() -> set[int]:
        connection.close()  # a fresh connection: a MariaDB restart broke the old one
        return set(VoucherOrder.objects.filter(voucher=sale_row).values_list("id", flat=True))

    # Every 200 is an order in the database, and the drain has stored all Redis holds.
    redis_client = stack.sale.client()
    stock_keys = [vouchers_keys.seckill_stock(s, sale_row.id) for s in _shards(sale_row)]

    def settled() -> bool:
        orders = persisted()
        stock = sum(int(cast("bytes", redis_client.get(key))) for key in stock_keys)
        return acknowledged <= orders and len(orders) + stock == STOCK

    wait_until(settled, timeout=120, interval=0.5)
    orders = VoucherOrder.objects.filter(voucher=sale_row)
    database_stock = Voucher.objects.get(pk=sale_row.pk).stock
    assert database_stock is not None
    assert database_stock + orders.count() == STOCK  # no unit sold twice, none lost
    assert orders.values("user_id").distinct().count() == orders.count()  # one per user
    dead = sum(
        redis_client.xlen(vouchers_keys.seckill_dead_letters(s))
        for s in range(settings.SECKILL_SHARDS)
    )
    assert dead == 0
    assert orders.count() == STOCK  # sold out: the sale served to the end by itself
    assert set(sale.verdicts.values()) <= {"sold_out", "duplicate_order"}


@dataclass(frozen=True)
class Crash:
    """A crash for `_sell_through_a_crash`: `strike` is instant (a signal), run by the
    buyer thread that records a third of the stock sold; `wait_over` returns once the
    crash is over (the Redis restarted, or a replica promoted)."""

    strike: Callable[[], None]
    wait_over: Callable[[], None]


def _sell_through_a_crash(
    stack: Stack, arm: Callable[[Voucher], Crash], *, buckets: int = 1
) -> Voucher:
    """Sell a sale (split into `buckets`) to BUYERS, crash it (`arm(sale)`, prepared
    before the sale starts) at a third of it, and check the history: the crash was felt
    (503s, never a 500) and the sale sold again after it by itself."""
    sale_row = _open_sale(stack, buckets)
    tokens = stack.tokens(BUYERS)
    stack.start()
    # A running stack, as a crash in production meets one: beat and a worker have run the
    # heartbeat. On a busy host they take seconds to start, and a kill that lands while a
    # worker is still starting tests that start, not the sale's heal.
    heartbeat = keys.heartbeat()
    wait_until(lambda: stack.redis.client().exists(heartbeat), timeout=120, interval=0.5)
    crash = arm(sale_row)
    sale, threads = _buy_all(
        stack.url, sale_row.id, tokens, time.monotonic() + 180, at_a_third=crash.strike
    )
    try:
        assert sale.crashed.wait(timeout=60), "a third of the sale was never sold"
        crash.wait_over()
        # Taken once the crash is over, not before it: a 200 already on its way when the
        # kill struck would otherwise pass for the sale selling again.
        recovered_at = time.monotonic()
    finally:
        _join(threads)

    _check_history(stack, sale_row, sale)
    assert sale.paused > 0
    sold_after = [at for at in sale.accepted_at.values() if at > recovered_at]
    assert sold_after, (
        "no 200 after the crash: the sale did not sell again by itself "
        f"({len(sale.accepted)} sold, {sale.paused} paused, final refusals: "
        f"{sorted(Counter(sale.verdicts.values()).items())})"
    )
    return sale_row


@pytest.mark.parametrize("stack", [ONE_REDIS, OWN_SALE_REDIS], indirect=True)
def test_redis_killed_mid_sale_loses_no_acknowledged_order(stack: Stack) -> None:
    """SIGKILL of the sale's Redis at a third of the sale, restarted from its AOF a
    second later: the run id changed, so the sale pauses (503) until the drain has
    rebuilt its shard from the database and the pending orders, then sells the rest."""

    def arm(_: Voucher) -> Crash:
        sale = _private(stack.sale)

        def restart() -> None:
            time.sleep(1)  # not a synchronisation: Redis stays down a while, as in a crash
            sale.start()

        return Crash(strike=sale.kill, wait_over=restart)

    sale_row = _sell_through_a_crash(stack, arm)
    # The shop's list reads the live stock where the sale keeps it (its own Redis or not).
    status, _, body = servers.call(f"{stack.url}/api/shops/{sale_row.shop_id}/vouchers")
    assert status == 200
    assert [v["remaining"] for v in json.loads(body) if v["id"] == sale_row.id] == [0]


@pytest.mark.skipif(not settings.REDIS_CLUSTER, reason="needs the test Redis Cluster")
def test_a_cluster_master_killed_mid_sale_loses_no_acknowledged_order(cluster_stack) -> None:
    """A sale split into three buckets, one on each master (vouchers/sale/buckets.py).
    SIGKILL of the master holding its first bucket at a third of the sale, without
    waiting for its replica to catch up, and the node stays dead: every 200 had a
    replica's acknowledgement (WAIT), so the promoted replica has it; under its new run
    id that bucket pauses until the drain has verified its shard (from the database, the
    pending orders and the other buckets), the others sell on, and the whole stock is
    sold once the Cluster's spare replica has moved to the promoted one (without a
    replica of its own, no order on it could be confirmed: 503, never 200)."""
    masters = cluster_client()

    def arm(sale_row: Voucher) -> Crash:
        bucket_keys = [vouchers_keys.seckill_stock(s, sale_row.id) for s in _shards(sale_row)]
        assert len({masters.get_node_from_key(key).name for key in bucket_keys}) == 3
        kill = ArmedKill(bucket_keys[0])  # not waiting for its replica to catch up
        return Crash(strike=kill.fire, wait_over=kill.wait_promoted)

    _sell_through_a_crash(cluster_stack, arm, buckets=3)


def test_worker_killed_mid_drain_loses_nothing(stack: Stack) -> None:
    """The sale accepts everything first; the worker is SIGKILLed once part is stored. A
    new worker re-reads what the dead one had claimed and not acknowledged."""
    sale_row = _open_sale(stack)
    tokens = stack.tokens(STOCK)
    stack.start_web()
    sale, threads = _buy_all(stack.url, sale_row.id, tokens, time.monotonic() + 120)
    _join(threads)
    assert len(sale.accepted) == STOCK

    stack.start_drain(SECKILL_DRAIN_BATCH=str(SLOW_BATCH))  # many batches: a kill lands mid-way
    orders = VoucherOrder.objects.filter(voucher=sale_row)
    wait_until(orders.exists, timeout=60, interval=0.005)
    kill(stack.processes["worker"], signal.SIGKILL)
    assert orders.count() < STOCK  # the kill came mid-drain
    stack.start_worker()

    _check_history(stack, sale_row, sale)


@pytest.mark.skipif(
    not os.environ.get("DATABASE_URL", "").startswith("mysql"),
    reason="kills the test MariaDB (scripts/mariadb.sh): a DATABASE_URL=mysql:// run",
)
def test_mariadb_killed_mid_drain_loses_nothing(stack: Stack) -> None:
    """MariaDB SIGKILLed while the drain stores the sale, started again five seconds
    later: the drain's batch rolled back and is stored again, once."""
    pid_file = Path(os.environ.get("MARIADB_DIR", "/var/tmp/dianping-mariadb-3307")) / "mysqld.pid"
    if not pid_file.exists():
        pytest.skip(f"no scripts/mariadb.sh server here ({pid_file})")
    sale_row = _open_sale(stack)
    tokens = stack.tokens(STOCK)
    stack.start_web()
    sale, threads = _buy_all(stack.url, sale_row.id, tokens, time.monotonic() + 120)
    _join(threads)
    stack.start_drain(SECKILL_DRAIN_BATCH=str(SLOW_BATCH))
    orders = VoucherOrder.objects.filter(voucher=sale_row)
    wait_until(orders.exists, timeout=60, interval=0.005)
    assert orders.count() < STOCK  # the drain is still at work
    os.kill(int(pid_file.read_text()), signal.SIGKILL)
    time.sleep(5)  # not a synchronisation: the database stays down, as the issue asks
    subprocess.run(["scripts/mariadb.sh", "start"], cwd=ROOT, check=True, timeout=120)

    _check_history(stack, sale_row, sale)


def test_with_redis_stopped_public_pages_load_from_the_database(stack: Stack) -> None:
    """Redis SIGKILLed under load: public reads (shop, note, lists, a shop's vouchers,
    the sales on now) answer 200 from the database, signed-in calls 503 with
    Retry-After (a token cannot be checked), health says "degraded"; no 500 anywhere.
    Redis started again, signed-in calls work again without a restart."""
    shop = ShopFactory()
    blog = BlogFactory(shop=shop)
    sale_row = _open_sale(stack)
    VoucherFactory(shop=shop, stock=5, begin_time=clock.now() - timedelta(minutes=1))
    token = stack.tokens(1)[0]
    stack.start()
    public = [
        f"/api/shops/{shop.id}",
        f"/api/shops?type_id={shop.type_id}",
        f"/api/blogs/{blog.id}",
        "/api/blogs/hot",
        f"/api/users/{blog.user_id}/blogs",
        f"/api/shops/{shop.id}/vouchers",
        "/api/vouchers/activities",
        "/api/shop-types",
    ]
    signed_in = ["/api/users/me", "/api/voucher-orders", f"/api/blogs/{blog.id}"]
    for path in public + signed_in:
        assert servers.call(stack.url + path, Authorization=f"Bearer {token}")[0] == 200, path

    _private(stack.redis).kill()
    anonymous: list[tuple[str, int]] = []
    signed: list[tuple[str, int, str]] = []  # (path, status, Retry-After)

    def reader(index: int) -> None:
        for round_ in range(5):
            for path in public:
                anonymous.append((path, servers.call(stack.url + path)[0]))
            path = signed_in[(index + round_) % len(signed_in)]
            status, headers, _ = servers.call(stack.url + path, Authorization=f"Bearer {token}")
            signed.append((path, status, headers.get("Retry-After", "")))

    readers = [threading.Thread(target=reader, args=(i,)) for i in range(8)]
    for thread in readers:
        thread.start()
    for thread in readers:
        thread.join(timeout=120)
    assert len(anonymous) == 8 * 5 * len(public)
    assert [a for a in anonymous if a[1] != 200] == []
    # The same documents as before, from the database.
    assert json.loads(servers.call(f"{stack.url}/api/shops/{shop.id}")[2])["id"] == shop.id
    on_sale = json.loads(servers.call(f"{stack.url}/api/vouchers/activities")[2])
    assert sale_row.id in {v["id"] for v in on_sale}
    assert json.loads(servers.call(f"{stack.url}/api/blogs/{blog.id}")[2])["is_liked"] is False
    assert len(signed) == 8 * 5
    assert [s for s in signed if s[1:] != (503, "1")] == []
    status, _, body = servers.call(stack.url + "/api/health")
    assert (status, json.loads(body)["status"]) == (200, "degraded")
    assert servers.call(f"{stack.url}/api/vouchers/{sale_row.id}/seckill", "POST")[0] == 401
    # /metrics still answers, and says which Redis is down (what DianpingRedisDown reads).
    status, _, body = servers.call(f"{stack.url}/metrics", Authorization=f"Bearer {METRICS}")
    exposition = body.decode()
    assert status == 200
    assert 'dianping_redis_up{redis="default"} 0.0' in exposition
    assert 'dianping_collector_up{collector="dianping.metrics.health_metrics"} 1.0' in exposition

    _private(stack.redis).start()
    # Each web worker closes its own circuit (a probe every 0.5 s): poll both answers, as
    # two calls may reach two workers.
    wait_until(
        lambda: (
            servers.call(stack.url + "/api/users/me", Authorization=f"Bearer {token}")[0] == 200
            and json.loads(servers.call(stack.url + "/api/health")[2])["redis"] == "ok"
        ),
        timeout=30,
        interval=0.2,
    )


@pytest.mark.parametrize("stack", [OWN_SALE_REDIS], indirect=True)
def test_with_only_the_sales_redis_down_signed_in_lists_still_load(stack: Stack) -> None:
    """The sale's own Redis killed, the main one up: tokens are checked as ever, the
    lists that show a sale's stock show the database's, and only the sale answers 503."""
    sale_row = _open_sale(stack)
    token = stack.tokens(1)[0]
    stack.start()
    auth = f"Bearer {token}"
    shop_vouchers = f"{stack.url}/api/shops/{sale_row.shop_id}/vouchers"
    assert servers.call(shop_vouchers, Authorization=auth)[0] == 200

    _private(stack.sale).kill()
    for url in (shop_vouchers, f"{stack.url}/api/vouchers/activities", f"{stack.url}/api/users/me"):
        status, _, body = servers.call(url, Authorization=auth)
        assert status == 200, (url, body)
    listed = json.loads(servers.call(shop_vouchers, Authorization=auth)[2])
    assert [v["remaining"] for v in listed if v["id"] == sale_row.id] == [STOCK]
    status, headers, _ = servers.call(
        f"{stack.url}/api/vouchers/{sale_row.id}/seckill", "POST", Authorization=auth
    )
    assert (status, headers["Retry-After"]) == (503, "1")
    status, _, body = servers.call(f"{stack.url}/api/health")
    assert (status, json.loads(body)["status"]) == (200, "degraded")
