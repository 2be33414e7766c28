"""The shop page's latency while pictures are uploaded, against the same page idle, same run.

    .venv/bin/python bench/uploads.py [--workers 2] [--threads 4] [--rounds 3]
        [--duration 10s] [--connections 8] [--delay-ms 10] [--uploaders 8]

Production settings under granian. wrk reads `GET /api/shops/{id}` at a steady pace
(each connection waits --delay-ms between requests: a moderate load, not the peak), in
alternated rounds: idle; while --uploaders users each post a decompression bomb (a
40-megapixel lossless WebP of about 1.6 KB) every --interval seconds; while they post
24-megapixel photographs (2 MB JPEGs) at that pace; and both again back to back, each
user's next upload sent as soon as the last is answered (a flood: a user's upload
limit, 60 an hour, is lifted here). It also times 8 bombs sent at once. Prints a
Markdown table for docs/benchmarks.md; `make bench-uploads` sets up first.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from harness import WRK_DIR, Server, WrkResult, manage, median_result, run_wrk, server_env
from PIL import Image, ImageFilter
from shops_bench import shop_id_range

RESET = 0  # the status tallied for an upload whose connection broke


def bomb() -> bytes:
    out = io.BytesIO()
    Image.new("L", (8000, 5000)).save(out, format="WEBP", lossless=True)
    return out.getvalue()


def photo() -> bytes:
    """A 6000 x 4000 JPEG with a photograph's detail (blurred noise), about 2 MB."""
    noise = Image.effect_noise((6000, 4000), 30).convert("RGB")
    out = io.BytesIO()
    noise.filter(ImageFilter.GaussianBlur(2)).save(out, format="JPEG", quality=85)
    return out.getvalue()


def upload(url: str, token: str, data: bytes) -> tuple[int, float]:
    """POST one picture; its status and seconds taken."""
    boundary = uuid.uuid4().hex
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="p"\r\n'
            f"Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    request = urllib.request.Request(
        f"{url}/api/uploads",
        data=body,
        method="POST",
        headers={
            "Authorization": f"Bearer {token}",
            "Content-Type": f"multipart/form-data; boundary={boundary}",
        },
    )
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            status = response.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    except OSError:  # a reset or broken pipe: the answer never reached the client
        status = RESET
    return status, time.monotonic() - started


class Uploaders:
    """A thread per token posting `data` back to back until stopped, tallying into
    `statuses` and `seconds` (shared by the rounds of one case)."""

    def __init__(
        self,
        url: str,
        tokens: list[str],
        data: bytes,
        interval: float,
        statuses: Counter[int],
        seconds: list,
    ) -> None:
        self.url, self.data, self.interval = url, data, interval
        self.statuses, self.seconds = statuses, seconds
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._loop, args=(t,)) for t in tokens]

    def _loop(self, token: str) -> None:
        while not self.stop.is_set():
            started = time.monotonic()
            status, seconds = upload(self.url, token, self.data)
            self.statuses[status] += 1
            self.seconds.append(seconds)
            self.stop.wait(max(0.0, self.interval - (time.monotonic() - started)))

    def __enter__(self) -> Uploaders:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=180)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4, help="threads per worker")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", default="10s")
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--delay-ms", type=int, default=10, help="pause per connection")
    parser.add_argument("--uploaders", type=int, default=8)
    parser.add_argument("--interval", type=float, default=1.0, help="seconds between uploads")
    parser.add_argument("--loads", help="comma-separated: some of the loads, not all")
    parser.add_argument("--port", type=int, default=8078)
    args = parser.parse_args()

    media = tempfile.mkdtemp(prefix="bench-media-")
    env = server_env(MEDIA_ROOT=media, THROTTLE_UPLOAD_USER="1000000/hour")
    manage("migrate", "--noinput", "-v0", env=env)
    manage("seed_demo", "--force", env=env)
    first_id, count = shop_id_range(env)
    tokens_file = Path(tempfile.mkdtemp()) / "tokens.txt"
    manage("issue_tokens", "--count", str(args.uploaders), "--out", str(tokens_file), env=env)
    tokens = tokens_file.read_text().split()
    bomb_file, photo_file = bomb(), photo()
    # case: (picture, seconds between a user's uploads)
    loads = {
        "bombs": (bomb_file, args.interval),
        "photos": (photo_file, args.interval),
        "bombs back to back": (bomb_file, 0.0),
        "photos back to back": (photo_file, 0.0),
    }
    read_env = {
        **os.environ,
        "SHOP_FIRST_ID": str(first_id),
        "SHOP_COUNT": str(count),
        "DELAY_MS": str(args.delay_ms),
    }
    script = str(WRK_DIR / "shop_detail.lua")
    if args.loads:
        loads = {case: loads[case] for case in args.loads.split(",")}
    cases = ["idle", *loads]
    results: dict[str, list[WrkResult]] = {case: [] for case in cases}
    statuses: dict[str, Counter[int]] = {case: Counter() for case in loads}
    seconds: dict[str, list[float]] = {case: [] for case in loads}
    with Server("granian", args.workers, args.port, env, args.threads) as server:
        for shop_id in range(first_id, first_id + count):  # warm every cache entry
            urllib.request.urlopen(f"{server.url}/api/shops/{shop_id}").read()
        at_once = eight_at_once(server.url, tokens, bomb_file)
        for _ in range(args.rounds):
            for case in cases:
                if case == "idle":
                    results[case].append(read(server.url, args, script, read_env))
                    continue
                picture, interval = loads[case]
                with Uploaders(
                    server.url, tokens, picture, interval, statuses[case], seconds[case]
                ):
                    time.sleep(1)  # the uploads under way before the reads start
                    results[case].append(read(server.url, args, script, read_env))
    report(args, results, statuses, seconds, at_once, loads)


def read(url: str, args: argparse.Namespace, script: str, env: dict[str, str]) -> WrkResult:
    return run_wrk(
        url, duration=args.duration, connections=args.connections, script=script, env=env
    )


def eight_at_once(url: str, tokens: list[str], data: bytes) -> tuple[float, Counter[int]]:
    """Wall time for 8 bombs posted together, and their statuses."""
    started = time.monotonic()
    with ThreadPoolExecutor(8) as pool:
        done = list(pool.map(lambda i: upload(url, tokens[i % len(tokens)], data), range(8)))
    return time.monotonic() - started, Counter(status for status, _ in done)


def report(args, results, statuses, seconds, at_once, loads) -> None:
    medians = {case: median_result(rounds) for case, rounds in results.items()}
    idle = medians["idle"]
    print(
        f"\ngranian workers={args.workers} threads={args.threads}; shop page read by "
        f"wrk -t2 -c{args.connections} -d{args.duration} paced {args.delay_ms} ms per "
        f"connection; {args.uploaders} users uploading, one every {args.interval:g} s each "
        f"or back to back; {args.rounds} rounds, medians\n"
    )
    print("| shop page | req/s | p50 ms | p99 ms | p99 x idle | uploads answered |")
    print("|---|---|---|---|---|---|")
    for case, result in medians.items():
        answered = ", ".join(f"{n} x {s}" for s, n in sorted(statuses.get(case, {}).items()))
        print(
            f"| {case} | {result.requests_per_second:.0f} | {result.p50_ms:.2f} | "
            f"{result.p99_ms:.2f} | {result.p99_ms / idle.p99_ms:.2f} | {answered or '-'} |"
        )
    for case, taken in seconds.items():
        print(
            f"\n{case} ({len(loads[case][0]):,} bytes each): upload p50 "
            f"{statistics.median(taken) * 1000:.0f} ms, max {max(taken) * 1000:.0f} ms"
        )
    wall, answers = at_once
    print(f"\n8 bombs at once: {wall:.3f} s, answered {dict(answers)}")
    failures = sum(r.non_2xx + r.errors for r in medians.values())
    resets = sum(tally[RESET] for tally in statuses.values()) + at_once[1][RESET]
    if failures or resets:
        sys.exit(f"{failures} failed reads of the shop page, {resets} uploads cut off")


if __name__ == "__main__":
    main()
