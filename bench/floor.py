"""What every request pays before its view does anything: the bare view `/api/ping` through
the production middleware, in process, measured per middleware.

    .venv/bin/python bench/floor.py [--root CHECKOUT] [--count 2000] [--runs 7]

Calls the WSGI application (production settings, prometheus-client's multiprocess mode,
the Redis of REDIS_URL, SQLite) with one prepared environ, as wrk's GET sends it, and
prints per request:
- Python function calls and C calls (sys.setprofile, exact) and lines run (sys.settrace),
  each charged to the middleware whose hook is running (its __call__, process_request,
  process_view, process_response, process_exception; what it calls, too), the rest to
  "handler + view" (Django's handler, URL resolution, the view, the signals);
- CPU µs per request (the process's own CPU time, so other work on a shared machine shows
  less), the median of `--runs` rounds of `--count` calls: the full chain, and
  the chain without each middleware in turn (the difference is that middleware's cost).
Deterministic counts first, since timings on a shared machine wander; `--root` measures
another checkout (an older commit's worktree) with this same script. Figures in
docs/benchmarks.md ("The floor: what every request pays").
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

BARE_PATH = "/api/ping"
HANDLER = "handler + view"
DUMP: Counter = Counter({("", ""): 1}) if os.environ.get("FLOOR_DUMP") else Counter()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=str(Path(__file__).resolve().parent.parent))
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--full-only", action="store_true", help="time the full chain only")
    parser.add_argument("--profile", action="store_true", help="print cProfile's top calls")
    args = parser.parse_args()

    os.chdir(args.root)
    sys.path.insert(0, args.root)
    os.environ.update(
        DJANGO_SETTINGS_MODULE="dianping.settings.production",
        SECRET_KEY="bench-only-secret-key-bench-only-secret-key-0123456789",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE_SSL_REDIRECT="false",
        LOG_LEVEL="WARNING",
        NUM_PROXIES="0",
        PROMETHEUS_MULTIPROC_DIR=tempfile.mkdtemp(prefix="bench-floor-"),
    )
    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6391/0")

    import django

    django.setup()
    from django.conf import settings
    from django.core.handlers.wsgi import WSGIHandler

    full = list(settings.MIDDLEWARE)

    def app_with(middleware: list[str]) -> WSGIHandler:
        settings.MIDDLEWARE = middleware
        return WSGIHandler()

    app = app_with(full)
    environ = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": BARE_PATH,
        "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": "127.0.0.1:8000",
        "REMOTE_ADDR": "127.0.0.1",
        "wsgi.url_scheme": "http",
        "wsgi.version": (1, 0),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }

    def call(application: Any) -> None:
        env = dict(environ)
        env["wsgi.input"] = io.BytesIO(b"")
        status: list[str] = []
        body = application(env, lambda s, h, exc_info=None: status.append(s))
        for _ in body:
            pass
        body.close()
        if not status[0].startswith("200"):
            raise SystemExit(f"{BARE_PATH} answered {status[0]}")

    for _ in range(200):
        call(app)

    print(f"# {args.root} at {_head(args.root)}: {BARE_PATH}, {len(full)} middleware")
    calls, c_calls, lines = _counts(app, call, 200)
    names = [*full, HANDLER]
    print("\n| middleware | Python calls | C calls | lines |")
    print("|---|---:|---:|---:|")
    for name in names:
        print(f"| {_short(name)} | {calls[name]:.0f} | {c_calls[name]:.0f} | {lines[name]:.0f} |")
    total = (sum(calls.values()), sum(c_calls.values()), sum(lines.values()))
    print(f"| **total** | {total[0]:.0f} | {total[1]:.0f} | {total[2]:.0f} |")

    apps = {"full chain": app}
    for name in [] if args.full_only else full:
        apps[f"without {_short(name)}"] = app_with([m for m in full if m != name])
    settings.MIDDLEWARE = full
    for label, each in list(apps.items()):
        try:
            for _ in range(200):
                call(each)
        except SystemExit:  # needs the one taken out (auth and messages need sessions)
            del apps[label]
    rounds: dict[str, list[float]] = {label: [] for label in apps}
    for _ in range(args.runs):  # interleaved, so a busy moment hits every variant alike
        for label, each in apps.items():
            started = time.process_time()  # this process's CPU: others' load shows less
            for _ in range(args.count):
                call(each)
            rounds[label].append((time.process_time() - started) / args.count * 1e6)
    base = statistics.median(rounds["full chain"])
    print(f"\nCPU µs per request, median of {args.runs} rounds of {args.count}:")
    print("| chain | µs/request | fastest round | saved (the middleware's cost) |")
    print("|---|---:|---:|---:|")
    for label, values in rounds.items():
        median = statistics.median(values)
        saved = "" if label == "full chain" else f"{base - median:.1f}"
        print(f"| {label} | {median:.1f} | {min(values):.1f} | {saved} |")

    if args.profile:
        import cProfile
        import pstats

        profile = cProfile.Profile()
        profile.enable()
        for _ in range(args.count):
            call(app)
        profile.disable()
        pstats.Stats(profile).sort_stats("tottime").print_stats(25)


def _counts(app: Any, call: Any, n: int) -> tuple[Counter, ...]:
    """Per request: Python calls, C calls and lines, by the middleware hook running."""
    hooks = {"__call__", "process_request", "process_view", "process_response"}
    hooks.add("process_exception")
    instances: dict[int, str] = {}
    handler = app._middleware_chain
    # Walk the chain: each convert_exception_to_response wrapper closes over a middleware.
    for name, instance in _chain(handler):
        instances[id(instance)] = name

    def owner(frame: Any) -> str:
        while frame is not None:
            if frame.f_code.co_name == "_get_response":  # past the chain: resolve, view
                return HANDLER
            if frame.f_code.co_name in hooks:
                name = instances.get(id(frame.f_locals.get("self")))
                if name is not None:
                    return name
            frame = frame.f_back
        return HANDLER

    calls: Counter = Counter()
    c_calls: Counter = Counter()
    lines: Counter = Counter()

    def profiler(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            who = owner(frame)
            calls[who] += 1
            if DUMP:
                code = frame.f_code
                DUMP[(who, f"{Path(code.co_filename).name}:{code.co_name}")] += 1
        elif event == "c_call":
            who = owner(frame)
            c_calls[who] += 1
            if DUMP:
                DUMP[(who, f"C {getattr(arg, '__qualname__', arg)}")] += 1

    sys.setprofile(profiler)
    for _ in range(n):
        call(app)
    sys.setprofile(None)
    if DUMP:
        for (who, fn), k in sorted(DUMP.items()):
            print(f"DUMP {_short(who)} {fn} {k / n:.2f}")

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        if event == "line":
            lines[owner(frame)] += 1
        return tracer

    sys.settrace(tracer)
    for _ in range(n):
        call(app)
    sys.settrace(None)
    # The bench's own call() and start_response count under "handler + view": alike in both.
    return tuple(Counter({k: v / n for k, v in c.items()}) for c in (calls, c_calls, lines))


def _chain(handler: Any) -> list[tuple[str, Any]]:
    from django.conf import settings

    found: list[tuple[str, Any]] = []
    by_class = {name.rsplit(".", 1)[1]: name for name in settings.MIDDLEWARE}
    seen: set[int] = set()
    stack = [handler]
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        name = by_class.get(type(obj).__name__)
        if name is not None:
            found.append((name, obj))
        for cell in getattr(obj, "__closure__", None) or ():
            stack.append(cell.cell_contents)
        if name is not None:
            stack.append(getattr(obj, "get_response", None))
    return found


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def _head(root: str) -> str:
    import subprocess

    return subprocess.run(
        ["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()


if __name__ == "__main__":
    main()
