"""Benchmark harness: a real server, a real client (wrk), and a baseline in the same run.

The machine has 2 cores shared by wrk, the server and Redis, so absolute numbers
drift between runs; only ratios against the baseline measured in the same run
mean something. Rounds alternate baseline and target and medians are reported.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = ROOT / ".venv" / "bin"
WRK_DIR = ROOT / "bench" / "wrk"  # the wrk scripts the benchmarks drive


@dataclass
class WrkResult:
    requests_per_second: float
    p50_ms: float
    p99_ms: float
    non_2xx: int
    errors: int
    requests: int = 0  # completed in the run (median_result leaves it 0)
    p999_ms: float | None = None  # printed by scripts that define done() (ping, seckill)


METRICS_TOKEN = "bench-metrics-token"


def _metrics_dir() -> str:
    """A multiprocess directory for one environment's servers and workers, removed when
    the bench exits."""
    path = tempfile.mkdtemp(prefix="bench-metrics-")
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


def server_env(**extra: str) -> dict[str, str]:
    """Production settings, reachable over plain HTTP on loopback, counting metrics as
    production does (one multiprocess directory for the servers and workers of a run)."""
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "dianping.settings.production",
        "SECRET_KEY": "bench-only-secret-key-bench-only-secret-key-0123456789",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_SSL_REDIRECT": "false",
        "LOG_LEVEL": "WARNING",
        "NUM_PROXIES": "0",
        "SECKILL_REDIS_URL": "",  # one Redis unless the bench asks (bench/api.py does)
        "PROMETHEUS_MULTIPROC_DIR": _metrics_dir(),
        "METRICS_TOKEN": METRICS_TOKEN,
        **extra,
    }


def server_command(server: str, workers: int, port: int, threads: int) -> list[str]:
    app = "dianping.wsgi:application"
    if server == "granian":  # the production command (scripts/web.sh), sized here
        return [
            "env",
            f"WEB_WORKERS={workers}",
            f"WEB_THREADS={threads}",
            "HOST=127.0.0.1",
            f"PORT={port}",
            str(ROOT / "scripts" / "web.sh"),
            "--log-level",
            "warning",
        ]
    if server == "gunicorn":
        return [
            str(VENV_BIN / "gunicorn"),
            "--workers",
            str(workers),
            "--threads",
            str(threads),
            "--bind",
            f"127.0.0.1:{port}",
            "--log-level",
            "warning",
            app,
        ]
    raise ValueError(f"unknown server {server!r}")


class Server:
    def __init__(
        self, server: str, workers: int, port: int, env: dict[str, str], threads: int = 1
    ) -> None:
        self.url = f"http://127.0.0.1:{port}"
        self.process = subprocess.Popen(
            server_command(server, workers, port, threads),
            cwd=ROOT,
            env=env,
            start_new_session=True,
        )

    def __enter__(self) -> Server:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.url}/api/ping", timeout=1) as response:
                    if response.status == 200:
                        return self
            except OSError:
                time.sleep(0.2)
        self.__exit__()
        raise RuntimeError("server did not come up within 30 s")

    def __exit__(self, *exc: object) -> None:
        os.killpg(self.process.pid, 15)
        self.process.wait(timeout=30)


def require_wrk() -> str:
    wrk = shutil.which("wrk")
    if wrk is None:
        sys.exit("wrk is not installed: apt-get install wrk")
    return wrk


def run_wrk(
    url: str,
    *,
    duration: str,
    connections: int,
    script: str | None = None,
    env: dict[str, str] | None = None,
) -> WrkResult:
    command = [require_wrk(), "-t2", f"-c{connections}", f"-d{duration}", "--latency"]
    if script:
        command += ["-s", script]
    output = subprocess.run(
        [*command, url], capture_output=True, text=True, check=True, env=env
    ).stdout
    return parse_wrk(output)


_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def _ms(text: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", text).groups()
    return float(number) * _UNITS[unit]


def parse_wrk(output: str) -> WrkResult:
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    p50 = _ms(re.search(r"^\s+50%\s+(\S+)", output, re.M).group(1))
    p99 = _ms(re.search(r"^\s+99%\s+(\S+)", output, re.M).group(1))
    non_2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output)
    errors = re.search(r"Socket errors:.*?(\d+).*?(\d+).*?(\d+).*?(\d+)", output)
    total = re.search(r"(\d+) requests in", output)
    p999 = re.search(r"^p99\.9: (\d+)us$", output, re.M)
    return WrkResult(
        rps,
        p50,
        p99,
        int(non_2xx.group(1)) if non_2xx else 0,
        sum(map(int, errors.groups())) if errors else 0,
        int(total.group(1)) if total else 0,
        int(p999.group(1)) / 1000 if p999 else None,
    )


def median_result(results: list[WrkResult]) -> WrkResult:
    return WrkResult(
        statistics.median(r.requests_per_second for r in results),
        statistics.median(r.p50_ms for r in results),
        statistics.median(r.p99_ms for r in results),
        sum(r.non_2xx for r in results),
        sum(r.errors for r in results),
    )


def manage(*args: str, env: dict[str, str] | None = None) -> None:
    subprocess.run([str(VENV_BIN / "python"), "manage.py", *args], cwd=ROOT, check=True, env=env)


def manage_output(*args: str, env: dict[str, str] | None = None) -> str:
    command = [str(VENV_BIN / "python"), "manage.py", *args]
    return subprocess.run(
        command, cwd=ROOT, check=True, env=env, capture_output=True, text=True
    ).stdout


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_redis(port: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        ping = subprocess.run(
            ["redis-cli", "-p", str(port), "ping"], capture_output=True, text=True, check=False
        )
        if ping.stdout.strip() == "PONG":
            return
        time.sleep(0.1)
    raise RuntimeError("redis-server did not answer within 30 s")


@contextmanager
def own_stack(name: str, **extra: str) -> Iterator[dict[str, str]]:
    """A Redis (nothing saved) and a migrated SQLite database (var/<name>.sqlite3, made
    afresh) of the bench's own, so nothing of `make run`'s is touched: yields the
    production environment (server_env) that points at them; the Redis stops on exit."""
    workdir = Path(tempfile.mkdtemp(prefix=f"{name}-"))
    redis_port = free_port()
    redis = subprocess.Popen(
        [
            "redis-server",
            "--bind",
            "127.0.0.1",
            "--port",
            str(redis_port),
            "--dir",
            str(workdir),
            "--save",
            "",
            "--appendonly",
            "no",
            "--logfile",
            str(workdir / "redis.log"),
        ],
    )
    try:
        wait_for_redis(redis_port)
        database = ROOT / "var" / f"{name}.sqlite3"
        for suffix in ("", "-wal", "-shm"):  # a stale WAL would be replayed onto the new file
            Path(f"{database}{suffix}").unlink(missing_ok=True)
        env = server_env(
            DATABASE_URL=f"sqlite:///{database}",
            REDIS_URL=f"redis://127.0.0.1:{redis_port}/0",
            CELERY_BROKER_URL=f"redis://127.0.0.1:{redis_port}/1",
            **extra,
        )
        manage("migrate", "--noinput", "-v0", env=env)
        yield env
    finally:
        redis.terminate()
        redis.wait(timeout=30)
        shutil.rmtree(workdir, ignore_errors=True)
