"""Where one endpoint's CPU goes, in process: the URL's view called N times under cProfile.

    .venv/bin/python bench/cpu_profile.py /api/blogs/hot [--count 2000] [--token TOKEN]

Runs against the dev settings' database and Redis (`make run` set them up: demo data,
GEO, stock). Prints the CPU per request under the profiler and the costliest calls; the
findings per endpoint are in docs/benchmarks.md ("Where the time went").
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dianping.settings.dev")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--token", help="a bearer token, for signed-in reads")
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args()

    import django

    django.setup()
    from django.test import RequestFactory
    from django.urls import resolve

    headers = {"HTTP_AUTHORIZATION": f"Bearer {args.token}"} if args.token else {}
    factory = RequestFactory()

    def call() -> None:
        request = factory.get(args.path, HTTP_HOST="127.0.0.1", **headers)
        match = resolve(request.path_info)
        response = match.func(request, *match.args, **match.kwargs)
        if response.status_code != 200:
            answer = response.content[:200]
            raise SystemExit(f"{args.path} answered {response.status_code}: {answer!r}")

    for _ in range(50):  # warm: caches, near copies, the token's memo
        call()
    profile = cProfile.Profile()
    started = time.perf_counter()
    profile.enable()
    for _ in range(args.count):
        call()
    profile.disable()
    elapsed = time.perf_counter() - started
    print(f"{args.path}: {elapsed / args.count * 1e6:.0f} µs per request under the profiler")
    pstats.Stats(profile).sort_stats("cumulative").print_stats(args.top)


if __name__ == "__main__":
    main()
