"""GET /api/search against the bare Django JSON view, same server, same run; and the index's
freshness: from a committed note edit to its new word being found, through the task.

    .venv/bin/python bench/search_bench.py [--server granian|gunicorn] [--workers 2] [--threads 4]
        [--rounds 3] [--duration 10s] [--connections 32] [--writes 100]
        [--shops 2000] [--notes 10000] [--users 1000]

`make bench-search` runs it (scripts/bench.sh: Redis). The corpus is generated
(bench/search_corpus.py) into a database of its own (var/bench-search.sqlite3, unless
DATABASE_URL is set) and indexed by rebuild_search_index, whose time and size are reported.
Any non-2xx response or socket error fails the run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

import redis
from harness import (
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

KINDS = ("shops", "notes", "users")
BASELINE = "bare Django JSON view `/api/ping`"

SIZE = """
from django.db import connection
from search.models import Posting
with connection.cursor() as cursor:
    try:
        cursor.execute("SELECT SUM(pgsize) FROM dbstat WHERE name LIKE 'search_%'")
        size = cursor.fetchone()[0]
    except Exception:
        size = None
print(Posting.objects.count(), size or 0)
"""

# Runs inside `manage.py shell`: edit a note through the service (the task is enqueued after
# commit), then ask the server until its new word is found. Prints the delays as JSON.
FRESHNESS = """
import json, time, urllib.parse, urllib.request
from blogs.models import Blog
from blogs.services import blog_update
base, writes = {base!r}, {writes}
blog = Blog.objects.order_by("id").first()
delays = []
for i in range(writes + 1):
    word = f"fresh{{i}}x{{int(time.time())}}"
    blog_update(blog_id=blog.id, user_id=blog.user_id, data={{"title": word + " 鲜度测试"}})
    committed = time.perf_counter()
    url = f"{{base}}/api/search?" + urllib.parse.urlencode({{"q": word, "kind": "notes"}})
    while True:
        with urllib.request.urlopen(url) as response:
            if json.loads(response.read())["count"]:
                break
        time.sleep(0.001)
    if i:  # the first write warms the worker up
        delays.append((time.perf_counter() - committed) * 1000)
print(json.dumps(delays))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default="granian", choices=["granian", "gunicorn"])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4, help="threads per worker")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", default="10s")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--port", type=int, default=8078)
    parser.add_argument("--writes", type=int, default=100, help="edits timed for freshness")
    parser.add_argument("--shops", type=int, default=2000)
    parser.add_argument("--notes", type=int, default=10000)
    parser.add_argument("--users", type=int, default=1000)
    args = parser.parse_args()

    database = os.environ.get("DATABASE_URL")
    fresh: dict[str, str] = {}
    if database is None:
        path = ROOT / "var" / "bench-search.sqlite3"
        path.unlink(missing_ok=True)
        database = f"sqlite:///{path}"
        if "REDIS_URL" not in os.environ:
            # A database made anew has no Redis data: a Redis database of its own, emptied
            # (the last run's database identity is in it; decision 292 would refuse it).
            fresh["REDIS_URL"] = f"redis://127.0.0.1:{os.environ.get('REDIS_PORT', '6390')}/9"
            redis.Redis.from_url(fresh["REDIS_URL"]).flushdb()
    # wrk sends from one address: the search limit (decision 279) would answer 429s.
    env = server_env(DATABASE_URL=database, THROTTLE_SEARCH_IP="100000000/minute", **fresh)
    manage("migrate", "--noinput", "-v0", env=env)
    corpus_env = {
        **env,
        "SEARCH_SHOPS": str(args.shops),
        "SEARCH_NOTES": str(args.notes),
        "SEARCH_USERS": str(args.users),
    }
    words = manage_output(
        "shell", "-v0", "-c", "exec(open('bench/search_corpus.py').read())", env=corpus_env
    ).split()
    started = time.perf_counter()
    manage("rebuild_search_index", "-v0", env=env)
    indexing_s = time.perf_counter() - started
    postings, size = map(int, manage_output("shell", "-v0", "-c", SIZE, env=env).split())
    documents = args.shops + args.notes + args.users

    runs = {BASELINE: ("ping.lua", dict(os.environ))}
    for kind in KINDS:
        runs[f"`GET /api/search?kind={kind}`, one or two words"] = (
            "paths.lua",
            {**os.environ, "PATHS_FILE": str(_paths(words, kind))},
        )
    results: dict[str, list[WrkResult]] = {name: [] for name in runs}
    worker = _celery_worker(env)
    try:
        with Server(args.server, args.workers, args.port, env, args.threads) as server:
            warm = _lua("ping.lua")
            run_wrk(server.url, duration="3s", connections=args.connections, script=warm)
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
            code = FRESHNESS.format(base=server.url, writes=args.writes)
            delays = json.loads(manage_output("shell", "-v0", "-c", code, env=env))
    finally:
        worker.terminate()
        worker.wait(timeout=30)

    medians = {name: median_result(rounds) for name, rounds in results.items()}
    baseline = medians[BASELINE]
    print(
        f"\nserver={args.server} workers={args.workers} threads={args.threads} "
        f"wrk -t2 -c{args.connections} -d{args.duration}, {args.rounds} rounds, medians; "
        f"database {database.split(':', 1)[0]}\n"
    )
    print(
        f"corpus: {args.shops} shops, {args.notes} notes, {args.users} users; "
        f"rebuild_search_index {indexing_s:.1f} s ({documents / indexing_s:.0f} documents/s); "
        f"{postings} postings ({postings / documents:.1f} a document)"
        + (f", {size / 2**20:.1f} MiB with its indexes\n" if size else "\n")
    )
    print("| endpoint | req/s | p50 ms | p99 ms | throughput ratio | p50 ratio | p99 ratio |")
    print("|---|---|---|---|---|---|---|")
    for name, result in medians.items():
        print(_row(name, result, baseline))
    delays.sort()
    p99 = delays[min(len(delays) - 1, round(0.99 * (len(delays) - 1)))]
    print(
        f"\nfreshness, {len(delays)} note edits (commit -> found over HTTP, Celery worker "
        f"prefork x1): median {statistics.median(delays):.1f} ms, p99 {p99:.1f} ms, "
        f"max {delays[-1]:.1f} ms"
    )
    failures = sum(r.non_2xx + r.errors for r in medians.values())
    if failures:
        sys.exit(f"{failures} non-2xx responses or socket errors: the figures are not valid")


def _paths(words: list[str], kind: str) -> Path:
    """One request path per line: every word alone, and pairs of words."""
    pairs = [f"{a} {b}" for a, b in zip(words, words[7:] + words[:7], strict=True)]
    lines = ["/api/search?" + urllib.parse.urlencode({"q": q, "kind": kind}) for q in words + pairs]
    path = Path(tempfile.mkdtemp()) / f"search-{kind}.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def _celery_worker(env: dict[str, str]) -> subprocess.Popen:
    command = [
        str(VENV_BIN / "celery"),
        "-A",
        "dianping",
        "worker",
        "--pool",
        "prefork",
        "--concurrency",
        "1",
        "--loglevel",
        "WARNING",
        "--without-mingle",
        "--without-gossip",
    ]
    return subprocess.Popen(command, cwd=ROOT, env=env)


def _lua(name: str) -> str:
    return str(WRK_DIR / name)


def _row(name: str, result: WrkResult, baseline: WrkResult) -> str:
    return (
        f"| {name} | {result.requests_per_second:.0f} | {result.p50_ms:.2f} | "
        f"{result.p99_ms:.2f} | {result.requests_per_second / baseline.requests_per_second:.2f} | "
        f"{result.p50_ms / baseline.p50_ms:.2f} | {result.p99_ms / baseline.p99_ms:.2f} |"
    )


if __name__ == "__main__":
    main()
