"""Production-shaped processes for tests: the web server as `scripts/web.sh` runs it,
with the production settings, on the test database and a Redis of the caller's choice;
and a client that fails on a reset or a broken pipe (Python's urllib)."""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

from django.conf import settings

from tests.helpers import free_port, wait_until
from tests.workers import ROOT, forget_database_identity


def production_env(database_url: str, media_root: Path, **extra: str) -> dict[str, str]:
    """The environment of a production process on `database_url`; `extra` overrides."""
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "dianping.settings.production",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "false",
        "DATABASE_URL": database_url,
        "REDIS_URL": settings.REDIS_URL,
        "SECKILL_REDIS_URL": "",  # a shell's (make run's) never; a caller passes its own
        "MEDIA_ROOT": str(media_root),
        "LOG_LEVEL": "ERROR",
        # Low enough for a test to reach; a test's own users never share a budget.
        "THROTTLE_UPLOAD_USER": "1/hour",
        **extra,
    }


def start_web(
    env: dict[str, str], workers: int, log: Path | None = None
) -> tuple[subprocess.Popen, str]:
    """The documented production command (scripts/web.sh), once it answers; its output
    goes to `log`, if given."""
    forget_database_identity(env)
    port = free_port()
    output = log.open("ab") if log else subprocess.DEVNULL
    process = subprocess.Popen(
        [str(ROOT / "scripts" / "web.sh")],
        cwd=ROOT,
        start_new_session=True,
        stdout=output,
        stderr=subprocess.STDOUT,
        env={
            **env,
            "WEB_WORKERS": str(workers),
            "WEB_THREADS": "2",
            "HOST": "127.0.0.1",
            "PORT": str(port),
            "GRANIAN": str(Path(sys.executable).parent / "granian"),
        },
    )
    url = f"http://127.0.0.1:{port}"
    wait_until(lambda: answers(f"{url}/api/ping"), timeout=90, interval=0.1)
    return process, url


def start_stream(env: dict[str, str], log: Path | None = None) -> tuple[subprocess.Popen, int]:
    """The notification stream's server as documented (scripts/stream.sh), once it answers
    (401 to a caller without a token); its port."""
    forget_database_identity(env)
    port = free_port()
    output = log.open("ab") if log else subprocess.DEVNULL
    process = subprocess.Popen(
        [str(ROOT / "scripts" / "stream.sh")],
        cwd=ROOT,
        start_new_session=True,
        stdout=output,
        stderr=subprocess.STDOUT,
        env={
            **env,
            "HOST": "127.0.0.1",
            "STREAM_PORT": str(port),
            "GRANIAN": str(Path(sys.executable).parent / "granian"),
        },
    )
    url = f"http://127.0.0.1:{port}/api/notifications/stream"
    wait_until(lambda: call(url)[0] == 401 if answers_at(port) else False, timeout=90, interval=0.1)
    return process, port


def answers_at(port: int) -> bool:
    """Whether anything accepts connections on the port."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


def answers(url: str) -> bool:
    try:
        return urllib.request.urlopen(url, timeout=1).status == 200
    except OSError:
        return False


def stop(process: subprocess.Popen) -> None:
    """A graceful stop: granian lets its workers finish first, which on two cores loaded
    by other test runs took over 30 s once (a worker still loading Django)."""
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=90)


def manage(env: dict[str, str], *args: str) -> str:
    """`manage.py <args>` in a process of `env`; its output."""
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=300,
        capture_output=True,
        text=True,
    )
    return done.stdout


def call(url: str, method: str = "GET", body: bytes | None = None, **headers: str):
    """(status, headers, body) of one request; a reset or broken pipe fails the test."""
    request = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()
