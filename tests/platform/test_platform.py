"""Project-wide promises: migrations in sync, deploy checks, schema, docs, admin, errors."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core.management import call_command
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from accounts.models import User
from toolkit.api.pagination import PageNumberPagination
from toolkit.redis import keys
from vouchers import keys as vouchers_keys

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.django_db
def test_models_and_migrations_do_not_drift() -> None:
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


def test_production_settings_pass_the_deploy_checklist() -> None:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "dianping.settings.production",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "dianping.example.com",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_production_settings_refuse_to_start_without_a_secret_key() -> None:
    env = {k: v for k, v in os.environ.items() if k != "SECRET_KEY"}
    env.update(DJANGO_SETTINGS_MODULE="dianping.settings.production", ALLOWED_HOSTS="x")
    result = _manage_check(env)
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_a_drain_stall_threshold_a_healthy_drain_can_reach_is_refused() -> None:
    """Beat starts a drain every 10 s, the first one 10 s after it starts: a threshold at
    or below that calls a healthy drain stalled (decision 296)."""
    result = _manage_check({**os.environ, "SECKILL_DRAIN_STALL_SECONDS": "10"})
    assert result.returncode != 0
    assert "SECKILL_DRAIN_STALL_SECONDS must exceed the drain's interval, 10 s" in result.stderr


@pytest.mark.django_db
def test_openapi_schema_lists_the_api(api) -> None:
    response = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")

    assert response.status_code == 200
    paths = response.json()["paths"]
    for path in [
        "/api/auth/code",
        "/api/auth/login",
        "/api/auth/logout",
        "/api/users/me",
        "/api/users/{user_id}",
        "/api/users/{user_id}/info",
    ]:
        assert path in paths
    assert "bearerAuth" in response.json()["components"]["securitySchemes"]
    # Any operation may meet an unreachable Redis (toolkit/redis/outage.py).
    operations = [op for item in paths.values() for op in item.values() if "responses" in op]
    assert operations
    assert all("503" in op["responses"] for op in operations)


@pytest.mark.django_db
def test_the_docs_say_how_to_get_and_paste_a_token(api) -> None:
    """/api/docs/ shows the schema's description: a newcomer reads there how to get a
    token and where to paste it (decision 468)."""
    schema = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    description = schema["info"]["description"]
    for step in ("POST /api/auth/code", "POST /api/auth/login", "`token`", "**Authorize**"):
        assert step in description
    assert "paste the token alone" in description
    assert "Authorization: Bearer <token>" in description
    assert "==> SMS to" in description  # where the code is, with `make run`
    bearer = schema["components"]["securitySchemes"]["bearerAuth"]
    assert (bearer["scheme"], "POST /api/auth/login" in bearer["description"]) == ("bearer", True)
    for path in ("/api/auth/code", "/api/auth/login"):
        assert path in schema["paths"]


def test_schema_generates_without_warnings() -> None:
    result = subprocess.run(
        [sys.executable, "manage.py", "spectacular", "--fail-on-warn", "--file", os.devnull],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "dianping.settings.test"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.django_db
def test_docs_admin_and_home_pages_render(client) -> None:
    docs = client.get("/api/docs/")
    assert docs.status_code == 200
    assert b"swagger-ui" in docs.content
    assert client.get("/admin/login/").status_code == 200
    assert client.get("/").status_code == 200


@pytest.mark.django_db
def test_health_reports_database_and_redis(api) -> None:
    response = api.get("/api/health")

    assert response.status_code == 200
    assert response.json()["database"] == "ok"
    assert response.json()["redis"] == "ok"
    assert response.json()["status"] == "ok"


@pytest.mark.django_db
def test_health_is_503_while_the_drain_or_the_workers_stall(api, redis_client, settings) -> None:
    """An order accepted two minutes ago and still in its stream means no drain runs (a
    dead worker, or one that lost its broker): 503, as is a heartbeat three intervals old."""
    now = time.time()
    stream = vouchers_keys.seckill_orders(settings.SECKILL_SHARDS - 1)
    redis_client.xadd(stream, {"voucher": 1}, id=f"{int((now - 30) * 1000)}-0")
    redis_client.set(keys.heartbeat(), repr(now - 2 * settings.HEARTBEAT_INTERVAL))
    body = api.get("/api/health").json()
    assert (body["drain"], body["worker"]) == ("ok", "ok")
    assert 29 < body["drain_lag_seconds"] < 60

    redis_client.delete(stream)
    for age in (120, 30):
        redis_client.xadd(stream, {"voucher": 1}, id=f"{int((now - age) * 1000)}-0")
    response = api.get("/api/health")
    assert response.status_code == 503
    assert response.json()["drain"] == "stalled"  # the oldest entry counts
    assert response.json()["status"] == "failing"

    redis_client.delete(stream)
    redis_client.set(keys.heartbeat(), repr(now - 4 * settings.HEARTBEAT_INTERVAL))
    response = api.get("/api/health")
    assert response.status_code == 503
    assert (response.json()["drain"], response.json()["worker"]) == ("ok", "stalled")


def test_benchmark_reference_views_answer(client) -> None:
    assert client.get("/api/ping").json() == {"pong": True}
    assert client.get("/api/ping/redis").json() == {"pong": True}


@pytest.mark.django_db
def test_oversized_body_is_refused_before_anything_happens(api, sms_outbox, redis_client) -> None:
    body = json.dumps({"phone": "13912345678", "pad": "x" * (3 * 1024 * 1024)})

    response = api.post("/api/auth/code", body, content_type="application/json")

    assert response.status_code == 413
    assert response.json()["code"] == "payload_too_large"
    assert sms_outbox == []
    assert not list(redis_client.scan_iter("login:*"))


@pytest.mark.django_db
def test_wrong_method_is_405_in_the_error_shape(api) -> None:
    response = api.get("/api/auth/login")

    assert response.status_code == 405
    assert response.json()["code"] == "method_not_allowed"


def _paginate(query: str, total: int) -> dict:
    User.objects.bulk_create(
        [User(username=f"p{i}", phone=f"1360000{i:04d}") for i in range(total)]
    )
    paginator = PageNumberPagination()
    request = Request(APIRequestFactory().get(f"/api/x{query}"))
    page = paginator.paginate_queryset(User.objects.order_by("id"), request)
    return paginator.get_paginated_response([u.username for u in page]).data


@pytest.mark.django_db
def test_pagination_pages_and_caps_the_page_size() -> None:
    first = _paginate("?page_size=3", 7)
    assert first["count"] == 7
    assert first["results"] == ["p0", "p1", "p2"]
    assert first["previous"] is None
    assert "page=2" in first["next"]

    User.objects.all().delete()
    assert len(_paginate("?page_size=500", 60)["results"]) == 50


@pytest.mark.django_db
def test_pages_past_the_end_are_empty() -> None:
    data = _paginate("?page=99999999999", 3)

    assert data["results"] == []
    assert data["count"] == 3
    assert data["next"] is None


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query", ["?page=0", "?page=abc", "?page=-1", "?page_size=0", "?page=1.5", "?page=" + "9" * 40]
)
def test_bad_page_numbers_are_400(query) -> None:
    from rest_framework.exceptions import ValidationError

    with pytest.raises(ValidationError):
        _paginate(query, 1)


def test_under_load_runs_the_command_beside_busy_loops_and_kills_them_after() -> None:
    """scripts/under-load.sh (CI's contention step): the loops run while the command does,
    its status is the script's, and none is left once it ends, even when it failed."""
    listing = (
        "for p in $(pgrep -P $PPID); do echo $p; pgrep -P $p; done; "
        "ps -o args= --ppid $PPID | grep -c '^timeout '; exit 3"
    )
    result = subprocess.run(
        [str(ROOT / "scripts" / "under-load.sh"), "2", "--", "sh", "-c", listing],
        env={**os.environ, "UNDER_LOAD_MAX_SECONDS": "60"},  # should the test itself fail
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 3, result.stderr
    *pids, loops = result.stdout.split()
    assert int(loops) == 2
    alive = [p for p in pids if Path(f"/proc/{p}").exists()]
    if alive:  # a kill is delivered at once, the exit a moment later
        time.sleep(0.5)  # not a synchronisation: a grace for the exits, then a check
        alive = [p for p in alive if Path(f"/proc/{p}").exists()]
    assert alive == []


def test_a_second_make_run_refuses_before_touching_anything() -> None:
    """`make run` holds var/run.lock while it serves; another one stops at its first step
    (`scripts/run.sh --check`, before set-up, migrations or demo data)."""
    import contextlib
    import fcntl

    (ROOT / "var").mkdir(exist_ok=True)
    with open(ROOT / "var" / "run.lock", "a") as held:
        with contextlib.suppress(BlockingIOError):  # a real `make run` may hold it already
            fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as a running `make run` does
        try:
            result = subprocess.run(
                [str(ROOT / "scripts" / "run.sh"), "--check"],
                capture_output=True,
                text=True,
                timeout=30,
            )
        finally:
            fcntl.flock(held, fcntl.LOCK_UN)

    assert result.returncode == 1
    assert "make run is already running" in result.stderr


def _apt_sandbox(root: Path) -> list[str]:
    """apt-get options that put every lock, list, cache and status file apt touches under
    `root`: the tests hold those locks, never the machine's, which another apt may need."""
    for folder in ("dpkg", "lists/partial", "cache/archives/partial", "state", "log", "parts"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / "dpkg" / "status").touch()
    (root / "sources.list").touch()
    options = {
        "Dir::State": "state/",
        "Dir::State::status": "dpkg/status",  # the dpkg locks sit beside it
        "Dir::State::Lists": "lists/",
        "Dir::Cache": "cache/",
        "Dir::Log": "log/",
        "Dir::Etc::SourceList": "sources.list",
        "Dir::Etc::SourceParts": "parts/",
    }
    return [arg for name, path in options.items() for arg in ("-o", f"{name}={root / path}")]


def _hold(path: Path) -> int:
    """An fcntl write lock on `path`, as apt and dpkg take theirs; closing the fd frees it."""
    import fcntl

    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o640)
    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return fd


def _apt(args: list[str], timeout: float, log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "APT_LOCK_TIMEOUT": str(timeout), "APT_LOCK_RETRY": "0.1"}
    with open(log, "wb") as errors:
        return subprocess.Popen(
            [str(ROOT / "scripts" / "apt.sh"), *args],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=errors,
        )


needs_apt = pytest.mark.skipif(not shutil.which("apt-get"), reason="no apt-get here")


@pytest.mark.slow
@needs_apt
@pytest.mark.parametrize(
    ("args", "lock"),
    [
        (["update", "-qq"], "lists/lock"),  # apt's DPkg::Lock::Timeout does not cover it
        (["install", "-y", "-qq"], "dpkg/lock-frontend"),  # the one `make run` met
    ],
    ids=["update", "install"],
)
def test_apt_waits_while_another_holds_its_lock_then_goes_on(tmp_path, args, lock) -> None:
    """scripts/apt.sh, which `make run`, `make test` and CI install through, waits for
    another apt's lock instead of failing at once (decision 290)."""
    options = _apt_sandbox(tmp_path)
    log = tmp_path / "stderr"
    fd = _hold(tmp_path / lock)
    try:
        process = _apt([*args, *options], timeout=60, log=log)
        deadline = time.monotonic() + 30
        while "waiting up to 60s" not in log.read_text() and time.monotonic() < deadline:
            assert process.poll() is None, log.read_text()  # it must wait, not fail
            time.sleep(0.05)
        assert "waiting up to 60s" in log.read_text()
        assert f"held by process {os.getpid()}" in log.read_text()
        assert process.poll() is None
    finally:
        os.close(fd)
    assert process.wait(timeout=30) == 0, log.read_text()
    assert "the lock was freed after" in log.read_text()


@pytest.mark.slow
@needs_apt
def test_apt_gives_up_after_its_bound_and_fails_other_errors_at_once(tmp_path) -> None:
    options = _apt_sandbox(tmp_path)
    log = tmp_path / "stderr"
    fd = _hold(tmp_path / "dpkg" / "lock-frontend")
    try:
        started = time.monotonic()
        assert _apt(["install", "-y", "-qq", *options], timeout=1, log=log).wait(30) == 100
        assert time.monotonic() - started >= 1
    finally:
        os.close(fd)
    said = log.read_text()
    assert "gave up after 1s: another apt or dpkg still holds its lock" in said
    assert f"held by process {os.getpid()}" in said

    # Not a lock: apt's own answer at once, no waiting.
    no_such = _apt(["install", "-y", "-qq", *options, "no-such-package"], timeout=60, log=log)
    assert no_such.wait(timeout=30) == 100
    assert "Unable to locate package no-such-package" in log.read_text()
    assert "waiting" not in log.read_text()


def test_make_alone_lists_every_target_with_what_it_does() -> None:
    """`make` (and `make help`) is the list of targets, each with its `##` line; only the
    internal steps (the virtualenv's stamp, run's lock check) stay off it."""
    import re

    makefile = (ROOT / "Makefile").read_text()
    rules = set(re.findall(r"^([a-z][a-z-]*):(?!=)", makefile, re.MULTILINE)) - {"run-guard"}
    listed = subprocess.run(
        ["make", "--no-print-directory"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    shown = dict(re.findall(r"^  make (\S+) +(.+)$", listed.stdout, re.MULTILINE))

    assert listed.returncode == 0, listed.stderr
    assert set(shown) == rules
    assert all(len(description) > 10 for description in shown.values())


APPS = ["accounts", "shops", "vouchers", "blogs", "follows", "signin", "merchants"]


# The project package composes the apps (URLs, settings, seed_demo): only its model (the
# database identity's table, which the toolkit reads by name) counts as "dianping" here.
# The toolkit and the pictures depend on no app (`make lint`'s lint-imports checks the
# layers in full).
ROOT_PARTS = ["models.py"]


def _app_imports() -> dict[str, set[str]]:
    """Which apps each app's code imports (anywhere in a module, lazy imports included)."""
    import ast

    graph: dict[str, set[str]] = {app: set() for app in [*APPS, "dianping", "toolkit", "pictures"]}
    for app in graph:
        for path in (ROOT / app).rglob("*.py"):
            part = path.relative_to(ROOT / app).parts[0]
            if "migrations" in path.parts or (app == "dianping" and part not in ROOT_PARTS):
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = []
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                graph[app] |= {n.split(".")[0] for n in names if n.split(".")[0] in graph}
        graph[app].discard(app)
    return graph


def test_no_import_cycles_between_apps() -> None:
    graph = _app_imports()

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        return any(
            nxt == goal or (nxt not in seen and reaches(nxt, goal, seen | {nxt}))
            for nxt in graph[start]
        )

    assert [app for app in graph if reaches(app, app, {app})] == []
    assert graph["toolkit"] == set()  # the toolkit knows no app
    assert graph["pictures"] == {"toolkit"}
    assert graph["dianping"] == set()  # its model imports only Django


def _manage_check(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`manage.py check` in a process of `env` (settings are read once, at its start)."""
    return subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
