"""What the production server answers (docs/product/errors.md#hard-to-break): granian
with the production settings, on the test database and Redis, asked over real sockets
by a client that fails on a reset or broken pipe (Python's urllib): JSON 405 for a
method a route does not serve, JSON 413 for a body over the limit whatever its size and
type, a 429 that reaches the client, the security headers, and the web client's modules
by their hashed names."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urljoin

import pytest

from accounts import tokens
from tests import servers
from tests.factories import ShopFactory, UserFactory
from tests.helpers import wait_until
from tests.workers import ROOT, current_database_url

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def production_env(django_db_setup, django_db_blocker, tmp_path_factory) -> dict[str, str]:
    with django_db_blocker.unblock():
        database_url = current_database_url()
    env = servers.production_env(database_url, tmp_path_factory.mktemp("media"))
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=120,
    )
    return env


@pytest.fixture(scope="module")
def server(production_env) -> Iterator[str]:
    process, url = servers.start_web(production_env, workers=1)
    try:
        yield url
    finally:
        servers.stop(process)


def test_a_web_worker_that_dies_is_started_again(production_env, tmp_path) -> None:
    """Issue 23: without --respawn-failed-workers, one worker killed ended the server."""
    log = tmp_path / "granian.log"
    process, url = servers.start_web(production_env, workers=2, log=log)
    try:
        workers = wait_until(lambda: len(_children(process.pid)) == 2 and _children(process.pid))
        # Both started first: a worker killed before it logged its start logs none at all.
        wait_until(lambda: log.read_text().count("Started worker") == 2, timeout=120)
        os.kill(workers[0], signal.SIGKILL)

        def replaced() -> bool:
            now = _children(process.pid)
            return len(now) == 2 and workers[0] not in now

        wait_until(replaced, timeout=120, interval=0.1)
        # Until the new worker has started, granian would not stop on SIGTERM (2.8.7). A
        # worker's start loads Django and the segmenter's dictionary: on two busy cores that
        # took over 30 s, hence the generous bounds.
        wait_until(lambda: log.read_text().count("Started worker") == 3, timeout=120)
        assert process.poll() is None
        assert all(servers.answers(f"{url}/api/ping") for _ in range(20))
    finally:
        servers.stop(process)


def _web_command(tmp_path: Path, cpus: str, **env: str) -> list[str]:
    """The granian command line scripts/web.sh would run on `cpus`, read from a stand-in
    granian that prints its arguments."""
    fake = tmp_path / "granian"
    fake.write_text('#!/bin/sh\necho "$@"\n')
    fake.chmod(0o755)
    base = {k: v for k, v in os.environ.items() if not k.startswith("WEB_")}
    out = subprocess.run(
        ["taskset", "-c", cpus, str(ROOT / "scripts" / "web.sh")],
        env={**base, "GRANIAN": str(fake), **env},
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    ).stdout
    return out.split()


def test_web_sh_runs_one_worker_per_core_with_one_thread(tmp_path) -> None:
    """Issue 37: several blocking threads per worker let one thread keep the GIL while the
    requests the others took waited (p99 up to 1.4 s); web.sh sizes itself from the cores
    it may use (decision 299), and WEB_WORKERS / WEB_THREADS still override it."""
    one = _web_command(tmp_path, "0")
    assert one[one.index("--workers") + 1] == "1"
    assert one[one.index("--blocking-threads") + 1] == "1"
    cores = sorted(os.sched_getaffinity(0))
    every = _web_command(tmp_path, ",".join(map(str, cores)), OMP_NUM_THREADS="1")
    assert every[every.index("--workers") + 1] == str(len(cores))
    chosen = _web_command(tmp_path, "0", WEB_WORKERS="3", WEB_THREADS="2")
    assert chosen[chosen.index("--workers") + 1] == "3"
    assert chosen[chosen.index("--blocking-threads") + 1] == "2"


def _children(pid: int) -> list[int]:
    """The worker processes granian's main process `pid` runs (from /proc)."""
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended meanwhile
            continue
        if int(fields[1]) == pid:  # the field after the state is the parent's pid
            children.append(int(stat.parent.name))
    return sorted(children)


@pytest.mark.parametrize(
    ("method", "path"),
    [("TRACE", "/api/shops"), ("TRACE", "/api/users/me"), ("PUT", "/api/shops/1/nearby"),
     ("DELETE", "/api/vouchers/activities"), ("PATCH", "/api/vouchers/1/seckill")],
)  # fmt: skip
def test_a_method_a_route_does_not_serve_is_a_json_405_even_anonymously(
    server, method, path
) -> None:
    status, headers, body = servers.call(server + path, method)

    assert status == 405  # was 401: DRF authenticated before it looked at the method
    assert json.loads(body)["code"] == "method_not_allowed"
    assert method not in headers["Allow"]
    assert "OPTIONS" in headers["Allow"]


@pytest.mark.parametrize(
    ("path", "content_type", "size"),
    [
        ("/api/blogs", "application/json", 2 * 1024 * 1024),
        ("/api/blogs", "text/plain", 2 * 1024 * 1024),
        ("/api/auth/code", "application/json", 30 * 1024 * 1024),
        ("/api/uploads", "multipart/form-data; boundary=x", 8 * 1024 * 1024),
        ("/api/uploads", "multipart/form-data; boundary=x", 40 * 1024 * 1024),
    ],
)
def test_a_body_over_the_limit_is_a_json_413_the_client_reads(
    server, path, content_type, size
) -> None:
    status, _, body = servers.call(
        server + path, "POST", b"x" * size, **{"Content-Type": content_type}
    )

    assert status == 413
    assert json.loads(body)["code"] == "payload_too_large"


@pytest.mark.django_db(transaction=True)
def test_a_rate_limited_upload_gets_its_429_not_a_reset(server) -> None:
    token = tokens.token_issue(UserFactory())
    body = b'--x\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\n'
    body += b"\xff" * (4 * 1024 * 1024) + b"\r\n--x--\r\n"
    headers = {
        "Authorization": f"Bearer {token}",
        "Content-Type": "multipart/form-data; boundary=x",
    }

    first = servers.call(f"{server}/api/uploads", "POST", body, **headers)
    second = servers.call(f"{server}/api/uploads", "POST", body, **headers)

    assert first[0] == 400  # not a picture: it used the one upload of the hour
    assert (second[0], json.loads(second[2])["code"]) == (429, "throttled")
    assert int(second[1]["Retry-After"]) > 0


@pytest.mark.django_db(transaction=True)
def test_security_headers(server) -> None:
    token = tokens.token_issue(UserFactory())
    shop = ShopFactory()

    _, page, _ = servers.call(f"{server}/")
    _, me, _ = servers.call(f"{server}/api/users/me", Authorization=f"Bearer {token}")
    _, public, _ = servers.call(f"{server}/api/shops/{shop.id}")
    _, mine_too, _ = servers.call(f"{server}/api/shops/{shop.id}", Authorization=f"Bearer {token}")

    csp = dict(d.strip().split(" ", 1) for d in page["Content-Security-Policy"].split(";"))
    assert csp["script-src"] == "'self'"  # no 'unsafe-inline', no 'unsafe-eval'
    assert csp["object-src"] == "'none'"
    assert csp["frame-ancestors"] == "'none'"
    assert "camera=()" in page["Permissions-Policy"]
    assert re.fullmatch(r"[0-9a-f]{32}", public["X-Request-ID"])  # toolkit/logs.py
    assert page["X-Request-ID"] != me["X-Request-ID"]
    assert me["Cache-Control"] == "no-store"  # personal JSON is never cached
    assert mine_too["Cache-Control"] == "no-store"  # sent with a token: its answer neither
    assert public["Cache-Control"] is None
    for headers in (page, me, public):
        assert not any(ch.isdigit() for ch in headers["Server"])  # no version given away


# An import or re-export of another module of ours: `import { h } from "./lib/dom.js";`
MODULE_IMPORT = re.compile(r'^(?:import|export)\b[^;]*?\bfrom\s*"([^"]+)"\s*;', re.MULTILINE)
HASHED_JS = re.compile(r"\.[0-9a-f]{12}\.js$")


def test_the_web_clients_modules_are_served_by_their_hashed_names(server) -> None:
    """collectstatic rewrote every import to a hashed name (dianping/staticfiles.py): the
    page loads one release's modules, each cached for good, none by its plain name."""
    _, _, page = servers.call(f"{server}/")
    found = re.search(r'<script type="module" src="([^"]+)"></script>', page.decode())
    assert found, "the page loads no module"
    entry = found[1]
    answers = {}
    waiting = [urljoin(f"{server}/", entry)]
    while waiting:
        url = waiting.pop()
        if url not in answers:
            status, headers, body = servers.call(url)
            answers[url] = (status, headers["Content-Type"], headers["Cache-Control"])
            waiting += [urljoin(url, path) for path in MODULE_IMPORT.findall(body.decode())]

    web = ROOT / "dianping" / "static" / "web"
    sources = {str(p.relative_to(web)) for p in web.rglob("*.js") if "vendor" not in p.parts}
    reached = {HASHED_JS.sub(".js", url.split("/static/web/", 1)[1]) for url in answers}
    assert reached == sources  # every module, app.js down to the last import
    assert all(HASHED_JS.search(url) for url in answers)
    for status, content_type, cache_control in answers.values():
        assert status == 200
        assert content_type.startswith("text/javascript")  # browsers refuse other types
        assert "immutable" in cache_control
