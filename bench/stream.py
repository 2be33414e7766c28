"""Many open notification streams against the stream process as production runs it
(scripts/stream.sh: granian, ASGI, one worker), on a Redis and a SQLite database of the
bench's own: each stream gets the notification written for its user once, and the
worker's memory per open stream is measured (its RSS after opening them, less before,
over how many). For docs/benchmarks.md "Notification stream".

    .venv/bin/python bench/stream.py [--streams 1000] [--per-user 1]   (make bench-stream)

Each user's notification is written by the real service in one batch (as a beat job
writes them), which pokes each user's channel once after the commit. Latency is from the
batch's commit to each stream's receipt of its event, on the same 2-core machine that
runs the client, so it grows with the number of streams the client parses.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness import ROOT, free_port, own_stack

WARMUP = 50  # streams opened and closed first: lazy imports and pools are then in the baseline


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def threads(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


def worker_of(process: subprocess.Popen) -> int:
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
    assert len(children) == 1, children
    return int(children[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--per-user", type=int, default=1, help="streams per user (tabs)")
    args = parser.parse_args()
    users_needed = -(-args.streams // args.per_user)

    with own_stack("bench-stream", NOTIFICATIONS_STREAM_HEARTBEAT="15") as env:
        os.environ.update(env)
        import django

        django.setup()
        from accounts import tokens
        from accounts.models import User
        from notifications import services
        from notifications.models import Kind, Notification
        from tests.sse import HttpStream

        users = User.objects.bulk_create(
            User(username=f"bench{i}", phone=f"139{i:08d}", nick_name=f"bench{i}")
            for i in range(users_needed)
        )
        users = list(User.objects.order_by("id"))
        bearer = tokens.tokens_issue(users)
        port = free_port()
        server = subprocess.Popen(
            [str(ROOT / "scripts" / "stream.sh"), "--log-level", "warning"],
            cwd=ROOT,
            start_new_session=True,
            env={**env, "HOST": "127.0.0.1", "STREAM_PORT": str(port), "STREAM_WORKERS": "1"},
        )

        def notify(key: str) -> tuple[float, dict[int, int]]:
            services.notifications_add_many(
                [
                    Notification(recipient_id=u.id, kind=Kind.COUPON_EXPIRING, dedup_key=key)
                    for u in users
                ]
            )
            committed = time.monotonic()
            made = Notification.objects.filter(dedup_key=key).values_list("recipient_id", "id")
            return committed, dict(made)

        async def open_many(count: int) -> list[tuple[int, HttpStream]]:
            gate = asyncio.Semaphore(100)  # connects in flight at once

            async def one(i: int) -> tuple[int, HttpStream]:
                user = users[i % len(users)]
                token = bearer[i % len(users)]
                async with gate:
                    opened = await HttpStream.open(
                        "127.0.0.1", port, headers={"Authorization": f"Bearer {token}"}
                    )
                    assert opened.status == 200, opened.status
                    await opened.next_event(timeout=60)  # the count: subscribed and read
                return user.id, opened

            return await asyncio.gather(*(one(i) for i in range(count)))

        async def scenario() -> None:
            deadline = time.monotonic() + 90
            while True:  # until it answers
                try:
                    probe = await HttpStream.open("127.0.0.1", port)
                    await probe.close()
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        raise
                    await asyncio.sleep(0.2)
            worker = worker_of(server)
            for _, warm in await open_many(WARMUP):
                await warm.close()
            await asyncio.sleep(1)  # the warm-up's streams leave the worker
            before, threads_before = rss_kib(worker), threads(worker)
            started = time.monotonic()
            streams = await open_many(args.streams)
            opened_in = time.monotonic() - started
            await asyncio.sleep(1)  # settled
            after, threads_open = rss_kib(worker), threads(worker)

            committed, made = await asyncio.to_thread(notify, "bench-first")
            latencies: list[float] = []

            async def receive(user_id: int, opened: HttpStream) -> None:
                item = await opened.next_event(timeout=120)
                latencies.append(time.monotonic() - committed)
                assert (item.event, item.json()["id"]) == ("notification", made[user_id])
                assert (await opened.next_event(timeout=120)).json() == {"unread": 1}

            await asyncio.gather(*(receive(u, s) for u, s in streams))
            # Exactly once: the next event of every stream is the next notification.
            _, second = await asyncio.to_thread(notify, "bench-second")
            for user_id, opened in streams:
                item = await opened.next_event(timeout=120)
                assert (item.event, item.json()["id"]) == ("notification", second[user_id])
            await asyncio.gather(*(s.close() for _, s in streams))

            per_stream = (after - before) * 1024 / args.streams
            latencies.sort()
            print(f"streams {args.streams} ({len(users)} users), opened in {opened_in:.1f} s")
            print(
                f"worker RSS {before / 1024:.1f} MiB -> {after / 1024:.1f} MiB: "
                f"{per_stream / 1024:.1f} KiB per stream"
            )
            print(f"worker threads {threads_before} -> {threads_open}")
            print(
                f"each got its notification once: {len(latencies)} of {args.streams}; "
                f"commit to receipt p50 {statistics.median(latencies) * 1000:.0f} ms, "
                f"p99 {latencies[int(len(latencies) * 0.99) - 1] * 1000:.0f} ms, "
                f"max {latencies[-1] * 1000:.0f} ms"
            )

        try:
            asyncio.run(scenario())
        finally:
            os.killpg(server.pid, 15)
            server.wait(timeout=60)


if __name__ == "__main__":
    main()
