"""Redis CPU per accepted grab on each master of the local 3-master Cluster: one hot sale in
one bucket (all its grabs on one master) against the same sale split into three buckets,
one per master (vouchers/sale/buckets.py). The work should divide: each master's CPU per
accepted grab of the split sale within 20 % of a third of the one-bucket figure.

    make bench-buckets            # or: .venv/bin/python bench/buckets.py [--grabs N]

It starts the test Cluster (scripts/redis-cluster.sh, ports 7001-7007), empties it,
migrates a throwaway SQLite database under var/, and drives the sale's own service
(`voucher_seckill`, the function the endpoint calls) from threads of this process,
without the web tier: what is measured is the masters' main-thread CPU (INFO cpu) over
the run, divided by the grabs accepted. The Cluster is stopped afterwards. Durability
`none`: the replica's acknowledgement costs each master the same per grab either way.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLUSTER = ROOT / "scripts" / "redis-cluster.sh"


def start_cluster() -> tuple[str, str]:
    url = subprocess.run([CLUSTER, "start"], check=True, capture_output=True, text=True)
    nodes = subprocess.run([CLUSTER, "nodes"], check=True, capture_output=True, text=True)
    return url.stdout.strip(), nodes.stdout.strip()


def configure(url: str, nodes: str, database: Path) -> None:
    os.environ.update(
        DJANGO_SETTINGS_MODULE="dianping.settings.dev",
        DATABASE_URL=f"sqlite:///{database}",
        REDIS_CLUSTER="true",
        REDIS_URL=url,
        REDIS_CLUSTER_NODES=nodes,
        CELERY_BROKER_URL="redis://127.0.0.1:1/0",  # never used: nothing is queued
        SECKILL_DURABILITY="none",
        SECKILL_FUNNEL_CAPACITY="1000000",
        LOG_LEVEL="WARNING",
    )
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def masters_cpu() -> dict[str, float]:
    """Main-thread CPU seconds (user + sys) of each master, by node name."""
    from toolkit.redis.cluster import cluster_client

    client = cluster_client()
    client.nodes_manager.initialize()
    return {
        node.name: (info := client.info("cpu", target_nodes=node))["used_cpu_user_main_thread"]
        + info["used_cpu_sys_main_thread"]
        for node in client.get_primaries()
    }


def sale(buckets: int, stock: int) -> int:
    from django.utils import timezone

    from shops import cities
    from shops.models import Shop, ShopType
    from vouchers.models import Voucher
    from vouchers.sale import buckets as sale_buckets
    from vouchers.sale import stock as sale_stock

    kind = ShopType.objects.get_or_create(name="bench", defaults={"sort": 1})[0]
    shop = Shop.objects.create(
        name="bench",
        type=kind,
        city_id=cities.default_city_id(),
        area="bench",
        address="bench",
        x=0,
        y=0,
    )
    now = timezone.now()
    voucher = Voucher.objects.create(
        shop=shop,
        title=f"bench {buckets}",
        pay_value=1,
        actual_value=2,
        type="seckill",
        stock=stock,
        begin_time=now - timedelta(minutes=1),
        end_time=now + timedelta(hours=1),
    )
    if buckets > 1:
        voucher.sale_shards = ",".join(map(str, sale_buckets.choose_shards(voucher.id, buckets)))
        voucher.save(update_fields=["sale_shards"])
    sale_stock.stock_load([voucher])
    return voucher.id


def grab_all(voucher_id: int, users: list[int], threads: int) -> int:
    from toolkit.errors import DomainError
    from vouchers.sale.seckill import voucher_seckill

    def grab(user_id: int) -> bool:
        try:
            voucher_seckill(user_id=user_id, voucher_id=voucher_id)
        except DomainError:
            return False
        return True

    with ThreadPoolExecutor(max_workers=threads) as pool:
        return sum(pool.map(grab, users))


def idle_rate(seconds: float = 2.0) -> dict[str, float]:
    """Each master's CPU seconds per second with no sale running (its cron, the Cluster
    bus, replication pings): taken off the run's, so a master that merely waited is 0."""
    before = masters_cpu()
    time.sleep(seconds)  # not a synchronisation: an idle interval measured on purpose
    after = masters_cpu()
    return {name: (after[name] - before[name]) / seconds for name in after}


def measure(
    buckets: int, grabs: int, threads: int, first_user: int, *, by_home: bool = False
) -> tuple[int, dict]:
    """One sale of `grabs` units bought by as many buyers. `by_home`: the buyers come
    bucket by bucket, so one master works at a time (on 2 cores, three busy masters and
    the client contend, and each grab's CPU grows with it)."""
    voucher_id = sale(buckets, stock=grabs)
    users = list(range(first_user, first_user + grabs))
    if by_home:
        users.sort(key=lambda user_id: user_id % buckets)  # buckets.home_shard's order
    idle = idle_rate()
    before = masters_cpu()
    started = time.monotonic()
    accepted = grab_all(voucher_id, users, threads)
    elapsed = time.monotonic() - started
    after = masters_cpu()
    per_grab = {
        name: max(0.0, after[name] - before[name] - idle[name] * elapsed) / accepted * 1e6
        for name in after
    }
    print(f"  {buckets} bucket(s): {accepted} accepted in {elapsed:.1f} s", file=sys.stderr)
    return accepted, per_grab


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grabs", type=int, default=20_000)
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    url, nodes = start_cluster()
    try:
        with tempfile.TemporaryDirectory(dir=ROOT / "var") as tmp:
            configure(url, nodes, Path(tmp) / "bench.sqlite3")
            from django.core.management import call_command

            from toolkit.redis.cluster import cluster_client

            cluster_client().flushall(target_nodes="primaries")  # the suite's keys, if any
            call_command("migrate", verbosity=0)
            call_command("reconcile_seckill", "--fix", verbosity=0)  # every shard verified
            rows = []
            shapes = [("1 bucket", 1, False), ("3 buckets", 3, False), ("3, by home", 3, True)]
            for round_no in range(args.rounds):
                for index, (label, buckets, by_home) in enumerate(shapes):
                    first_user = (round_no * len(shapes) + index) * args.grabs + 1
                    accepted, per_grab = measure(
                        buckets, args.grabs, args.threads, first_user, by_home=by_home
                    )
                    rows.append((label, accepted, per_grab))
            report(rows)
    finally:
        subprocess.run([CLUSTER, "stop"], check=False)


def report(rows: list[tuple[str, int, dict[str, float]]]) -> None:
    masters = sorted(rows[0][2])
    print("| sale | " + " | ".join(f"master {m}" for m in masters) + " | all masters |")
    print("|---" * (len(masters) + 2) + "|")
    for label, _, per_grab in rows:
        cells = [f"{per_grab[m]:.1f}" for m in masters]
        print(f"| {label} | " + " | ".join(cells) + f" | {sum(per_grab.values()):.1f} |")
    single = sorted(max(p.values()) for label, _, p in rows if label == "1 bucket")
    third = single[len(single) // 2] / 3
    print(
        f"\nµs of Redis main-thread CPU per accepted grab. One bucket's master, median: "
        f"{3 * third:.1f}; a third of it: {third:.1f}. Each master of a split sale "
        "against that third:"
    )
    for label, _, per_grab in rows:
        if label != "1 bucket":
            print(f"- {label}: " + ", ".join(f"{v / third:.2f}" for v in per_grab.values()))


if __name__ == "__main__":
    main()
