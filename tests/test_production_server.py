"""What the production server answers (SPEC §0 "Hard to break"): granian with the production
settings, on the test database and Redis, asked over real sockets by a client that fails
on a reset or broken pipe (Python's urllib): JSON 405 for a method a route does not
serve, JSON 413 for a body over the limit whatever its size and type, a 429 that reaches
the client, and the security headers."""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings

from accounts import tokens
from tests.factories import ShopFactory, UserFactory
from tests.workers import ROOT, current_database_url

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def server(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[str]:  # type: ignore[no-untyped-def]
    with django_db_blocker.unblock():
        database_url = current_database_url()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "dianping.settings.production",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "false",
        "DATABASE_URL": database_url,
        "REDIS_URL": settings.REDIS_URL,
        "MEDIA_ROOT": str(tmp_path_factory.mktemp("media")),
        "LOG_LEVEL": "ERROR",
        # Low enough for a test to reach; a test's own users never share a budget.
        "THROTTLE_UPLOAD_USER": "1/hour",
    }
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
        cwd=ROOT, env=env, check=True, timeout=120,
    )  # fmt: skip
    port = _free_port()
    process = subprocess.Popen(
        [str(Path(sys.executable).parent / "granian"), "--interface", "wsgi", "--workers", "1",
         "--blocking-threads", "2", "--host", "127.0.0.1", "--port", str(port), "--no-ws",
         "dianping.wsgi:application"],
        cwd=ROOT, env=env, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"{url}/api/ping", timeout=1).read()
            break
        except OSError:
            time.sleep(0.1)
    try:
        yield url
    finally:
        os.killpg(process.pid, 15)
        process.wait(timeout=30)


def _call(url: str, method: str = "GET", body: bytes | None = None, **headers: str):  # type: ignore[no-untyped-def]
    """(status, headers, body) of one request; a reset or broken pipe fails the test."""
    request = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


@pytest.mark.parametrize(
    ("method", "path"),
    [("TRACE", "/api/shops"), ("TRACE", "/api/users/me"), ("PUT", "/api/shops/1/nearby"),
     ("DELETE", "/api/vouchers/activities"), ("PATCH", "/api/vouchers/1/seckill")],
)  # fmt: skip
def test_a_method_a_route_does_not_serve_is_a_json_405_even_anonymously(
    server, method, path
) -> None:
    status, headers, body = _call(server + path, method)

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
    status, _, body = _call(server + path, "POST", b"x" * size, **{"Content-Type": content_type})

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

    first = _call(f"{server}/api/uploads", "POST", body, **headers)
    second = _call(f"{server}/api/uploads", "POST", body, **headers)

    assert first[0] == 400  # not a picture: it used the one upload of the hour
    assert (second[0], json.loads(second[2])["code"]) == (429, "throttled")
    assert int(second[1]["Retry-After"]) > 0


@pytest.mark.django_db(transaction=True)
def test_security_headers(server) -> None:
    token = tokens.token_issue(UserFactory())
    shop = ShopFactory()

    _, page, _ = _call(f"{server}/")
    _, me, _ = _call(f"{server}/api/users/me", Authorization=f"Bearer {token}")
    _, public, _ = _call(f"{server}/api/shops/{shop.id}")
    _, mine_too, _ = _call(f"{server}/api/shops/{shop.id}", Authorization=f"Bearer {token}")

    csp = dict(d.strip().split(" ", 1) for d in page["Content-Security-Policy"].split(";"))
    assert csp["script-src"] == "'self'"  # no 'unsafe-inline', no 'unsafe-eval'
    assert csp["object-src"] == "'none'"
    assert csp["frame-ancestors"] == "'none'"
    assert "camera=()" in page["Permissions-Policy"]
    assert me["Cache-Control"] == "no-store"  # personal JSON is never cached
    assert mine_too["Cache-Control"] == "no-store"  # sent with a token: its answer neither
    assert public["Cache-Control"] is None
    for headers in (page, me, public):
        assert not any(ch.isdigit() for ch in headers["Server"])  # no version given away
