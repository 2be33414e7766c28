"""The search attack of issue 36, reproducible: what one anonymous search over an adversarial
corpus costs the server, and what eight anonymous attackers do to everyone else's requests.

    .venv/bin/python bench/attack_search.py [--workers 2] [--threads 4] [--attackers 8]
        [--duration 15] [--notes 50]

The corpus: notes whose content is a short indexed run of one character followed by ~5,000
more of it (every position of the run is an occurrence of the query's terms), and notes
found by their title whose 5,000 characters of content hold no hit and change length when
normalized (a ligature: the highlighter's dearest path). The attack:
`GET /api/search?kind=notes&page_size=50&q=...`, 64 characters, anonymous.

For the limits as shipped and with the search limit lifted (what the bounded highlighting
alone holds), it reports each search's server CPU per request as a multiple of a cheap
GET's (`/api/ping`, the bare view), measured in the same run from the server processes'
own CPU time (/proc), and a cheap GET's median alone and while the attackers search. The
server is production-shaped (scripts/web.sh: granian, production settings), with a Redis
and a SQLite database of its own, so nothing of `make run`'s is touched.
"""

from __future__ import annotations

import argparse
import http.client
import os
import statistics
import threading
import time
import urllib.parse
from collections import Counter
from pathlib import Path

from harness import Server, free_port, manage, own_stack

CORPUS = """
from django.db import transaction
from accounts.models import User
from blogs.models import Blog
notes = {notes}
with transaction.atomic():
    user = User.objects.create(username="attacker", phone="13800000000", nick_name="attacker")
    Blog.objects.bulk_create(
        [Blog(user=user, title="aaa", content="a" * 31 + " " + "a" * 4968) for _ in range(notes)]
        + [Blog(user=user, title="kw", content="\\ufb01" * 5000) for _ in range(notes)]
    )
"""

QUERIES = {
    "a run, every position a hit (the issue's)": "a" * 31 + " " + "a" * 32,
    "found by title, no hit in 5,000 ligatures": "kw "
    + " ".join("bcdeghjklmnopqrstuvwxyz0123456789")[:61],
}
TICK = os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4, help="threads per worker")
    parser.add_argument("--attackers", type=int, default=8)
    parser.add_argument("--duration", type=float, default=15, help="seconds of attack")
    parser.add_argument("--notes", type=int, default=50, help="notes of each kind")
    args = parser.parse_args()

    web_port = free_port()
    with own_stack("bench-attack") as base:
        manage("shell", "-v0", "-c", CORPUS.format(notes=args.notes), env=base)
        manage("rebuild_search_index", "-v0", env=base)
        print(
            f"\nserver=granian (scripts/web.sh) workers={args.workers} threads={args.threads}; "
            f"{args.notes} notes of each kind; {args.attackers} attackers for "
            f"{args.duration:.0f} s; SQLite"
        )
        limits = {
            "limits as shipped": {},
            "search limit lifted": {"THROTTLE_SEARCH_IP": "1000000/minute"},
        }
        for label, extra in limits.items():
            env = {**base, **extra}
            with Server("granian", args.workers, web_port, env, args.threads) as server:
                _report(label, server, args)


def _report(label: str, server: Server, args: argparse.Namespace) -> None:
    host, port = server.url.removeprefix("http://").split(":")
    client = http.client.HTTPConnection(host, int(port), timeout=120)
    paths = {
        name: "/api/search?" + urllib.parse.urlencode({"q": q, "kind": "notes", "page_size": 50})
        for name, q in QUERIES.items()
    }
    for path in ["/api/ping", *paths.values()]:  # warm: the notes' documents, the patterns
        _get(client, path)
    ping_cpu = _cpu_per_request(server, client, "/api/ping", 300)
    print(f"\n{label}: a cheap GET (/api/ping) costs {ping_cpu * 1000:.2f} ms of server CPU")
    print("| search (page_size=50, anonymous) | server CPU per request | x a cheap GET | status |")
    print("|---|---|---|---|")
    costs = {}
    for name, path in paths.items():
        status = _get(client, path)
        costs[path] = _cpu_per_request(server, client, path, 8)
        print(f"| {name} | {costs[path] * 1000:.1f} ms | {costs[path] / ping_cpu:.0f} | {status} |")
    worst = max(costs, key=costs.__getitem__)  # what the attackers send
    quiet = _latencies(client, 200)
    statuses: Counter[int] = Counter()
    stop = threading.Event()
    attackers = [
        threading.Thread(target=_attack, args=(server.url, worst, stop, statuses))
        for _ in range(args.attackers)
    ]
    for thread in attackers:
        thread.start()
    busy: list[float] = []
    deadline = time.monotonic() + args.duration
    while time.monotonic() < deadline:
        busy += _latencies(client, 1)
    stop.set()
    for thread in attackers:
        thread.join()
    print(
        f"a cheap GET's median: {statistics.median(quiet) * 1000:.1f} ms alone, "
        f"{statistics.median(busy) * 1000:.1f} ms under {args.attackers} attackers "
        f"({len(busy)} cheap GETs; the attackers' answers: {dict(sorted(statuses.items()))})"
    )


def _attack(url: str, path: str, stop: threading.Event, statuses: Counter[int]) -> None:
    host, port = url.removeprefix("http://").split(":")
    client = http.client.HTTPConnection(host, int(port), timeout=120)
    while not stop.is_set():
        statuses[_get(client, path)] += 1  # Counter updates under the GIL: no lost counts


def _get(client: http.client.HTTPConnection, path: str) -> int:
    client.request("GET", path)
    response = client.getresponse()
    response.read()
    return response.status


def _latencies(client: http.client.HTTPConnection, count: int) -> list[float]:
    times = []
    for _ in range(count):
        started = time.perf_counter()
        _get(client, "/api/ping")
        times.append(time.perf_counter() - started)
    return times


def _cpu_per_request(
    server: Server, client: http.client.HTTPConnection, path: str, count: int
) -> float:
    """Seconds of CPU the server's processes spent per request of `path`, sent one at a
    time (user and system time, every process of the server's session)."""
    before = _server_cpu(server)
    for _ in range(count):
        _get(client, path)
    return (_server_cpu(server) - before) / count


def _server_cpu(server: Server) -> float:
    session = server.process.pid  # started in a session of its own
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # a process that ended meanwhile
            continue
        if int(fields[3]) == session:  # fields after the name: state ppid pgrp session ...
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICK


if __name__ == "__main__":
    main()
