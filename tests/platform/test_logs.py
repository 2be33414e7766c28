"""Log lines: a request id on every answer and every line of the request, the user id
where a token told it, JSON in production, and no token in any of them (toolkit/logs.py)."""

from __future__ import annotations

import importlib
import io
import json
import logging
import re
import sys
import threading
from collections.abc import Iterator
from logging.config import DictConfigurator
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from accounts import tokens
from dianping.settings import base
from tests.factories import ShopFactory
from tests.helpers import client_for
from toolkit import logs

MADE = re.compile(r"[0-9a-f]{32}")


def _configured(formatter: str) -> logging.Handler:
    """The console handler as the settings configure it (the filter and the formatter
    built from LOGGING by logging's own dictConfig machinery), writing to a buffer."""
    config = DictConfigurator(base.LOGGING)  # works on converted copies, as dictConfig
    handler = logging.StreamHandler(io.StringIO())
    handler.setFormatter(config.configure_formatter(config.config["formatters"][formatter]))
    for name in config.config["handlers"]["console"]["filters"]:
        handler.addFilter(config.configure_filter(config.config["filters"][name]))
    handler.setLevel(logging.DEBUG)
    return handler


@pytest.fixture
def lines(request: pytest.FixtureRequest) -> Iterator[io.StringIO]:
    """What the root logger writes during the test, through the configured handler (plain
    format unless the test is parametrized indirectly with "json"), at DEBUG."""
    handler = _configured(getattr(request, "param", "plain"))
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    loggers = {name: logging.getLogger(name).level for name in ("django", "django.request")}
    for name in loggers:
        logging.getLogger(name).setLevel(logging.DEBUG)
    try:
        yield handler.stream  # type: ignore[attr-defined]
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
        for name, old in loggers.items():
            logging.getLogger(name).setLevel(old)


@pytest.mark.django_db
def test_every_answer_has_a_request_id_made_or_echoed(api, user) -> None:
    shop = ShopFactory()
    made = api.get(f"/api/shops/{shop.id}")  # the fast path
    again = api.get(f"/api/shops/{shop.id}")
    assert made.status_code == 200
    assert MADE.fullmatch(made["X-Request-ID"])
    assert made["X-Request-ID"] != again["X-Request-ID"]

    echoed = client_for(user).get("/api/users/me", HTTP_X_REQUEST_ID="lb-7f3a:9.1")  # DRF
    assert echoed.status_code == 200
    assert echoed["X-Request-ID"] == "lb-7f3a:9.1"

    for junk in ("x" * 65, "two words", 'quote"', "new\nline", "汉字", ""):
        replaced = api.get("/api/blogs/hot", HTTP_X_REQUEST_ID=junk)
        assert replaced.status_code == 200
        assert MADE.fullmatch(replaced["X-Request-ID"]), junk


@pytest.mark.django_db
def test_errors_have_a_request_id_too(api) -> None:
    not_found = api.get("/api/blogs/987654", HTTP_X_REQUEST_ID="abc")  # fast path, 404
    no_route = api.get("/no/such/page", HTTP_X_REQUEST_ID="def")
    unserved = api.put("/api/blogs/hot", HTTP_X_REQUEST_ID="ghi")
    big = b"x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)
    too_large = api.generic(
        "POST", "/api/blogs", big, content_type="application/json", HTTP_X_REQUEST_ID="jkl"
    )
    assert (not_found.status_code, not_found["X-Request-ID"]) == (404, "abc")
    assert (no_route.status_code, no_route["X-Request-ID"]) == (404, "def")
    assert (unserved.status_code, unserved["X-Request-ID"]) == (405, "ghi")
    assert (too_large.status_code, too_large["X-Request-ID"]) == (413, "jkl")


@pytest.mark.django_db
def test_a_requests_log_lines_carry_its_id_and_the_user_id(user, lines) -> None:
    token = tokens.token_issue(user)
    client = client_for(user)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")

    answer = client.get("/api/blogs/987654", HTTP_X_REQUEST_ID="trace-1")  # fast path, 404
    logging.getLogger("after").warning("between requests")
    drf = client.get("/api/blogs/987654/comments", HTTP_X_REQUEST_ID="trace-2")

    assert answer.status_code == 404
    written = lines.getvalue().splitlines()
    not_found = [line for line in written if "Not Found: /api/blogs/987654" in line]
    assert f"[trace-1 user={user.id}] Not Found: /api/blogs/987654" in not_found[0]
    assert any("[None user=None] between requests" in line for line in written)
    assert drf.status_code == 404  # DRF's view this time
    assert any(f"[trace-2 user={user.id}] Not Found" in line for line in written)
    assert token not in lines.getvalue()  # not at DEBUG either, Authorization header or not


@pytest.mark.django_db
@pytest.mark.parametrize("lines", ["json"], indirect=True)
def test_the_json_format_is_one_object_per_line_with_the_ids(user, lines) -> None:
    client = client_for(user)
    client.get("/api/blogs/987654", HTTP_X_REQUEST_ID="trace-3")
    try:
        raise ValueError("boom")
    except ValueError:
        logging.getLogger("tests.logs").exception("failed with %s", "汉字")

    records = [json.loads(line) for line in lines.getvalue().splitlines()]
    found = next(r for r in records if r["message"] == "Not Found: /api/blogs/987654")
    assert found["request_id"] == "trace-3"
    assert found["user_id"] == user.id
    assert (found["level"], found["logger"], found["status_code"]) == (
        "WARNING",
        "django.request",
        404,
    )
    assert "request" not in found  # Django's request object (its query string) stays out
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+\+00:00", found["time"])
    failed = records[-1]
    assert failed["message"] == "failed with 汉字"
    assert failed["request_id"] is None
    assert failed["user_id"] is None
    assert failed["exc_info"].startswith("Traceback")
    assert "ValueError: boom" in failed["exc_info"]
    assert set(failed) >= {"time", "level", "logger", "message", "request_id", "user_id"}


def test_production_writes_json_and_dev_plain_lines(monkeypatch) -> None:
    monkeypatch.setenv("SECRET_KEY", "x" * 50)
    monkeypatch.setenv("ALLOWED_HOSTS", "example.com")
    monkeypatch.delenv("LOG_FORMAT", raising=False)
    monkeypatch.delitem(sys.modules, "dianping.settings.production", raising=False)
    production: Any = importlib.import_module("dianping.settings.production")
    try:
        assert production.LOGGING["handlers"]["console"]["formatter"] == "json"
        assert production.LOGGING["handlers"]["console"]["filters"] == ["request", "client_errors"]
        assert base.LOGGING["handlers"]["console"]["formatter"] == "plain"  # untouched
        # Only the metrics' timer comes before the request id, so every line has one.
        assert production.MIDDLEWARE[:4] == [
            "toolkit.metrics.RequestMetricsMiddleware",
            "dianping.middleware.GuardMiddleware",
            "django.middleware.security.SecurityMiddleware",
            "whitenoise.middleware.WhiteNoiseMiddleware",
        ]
    finally:
        sys.modules.pop("dianping.settings.production", None)


def test_a_tasks_lines_carry_its_task_id(lines) -> None:
    """The worker's signals around a task (as Celery sends them) set and reset the id."""
    from celery import signals

    import dianping.celery  # noqa: F401  (connects the receivers)

    signals.task_prerun.send(sender=None, task_id="task-1", task=None)
    logging.getLogger("tests.task").info("in the task")
    signals.task_postrun.send(sender=None, task_id="task-1", task=None)
    logging.getLogger("tests.task").info("after it")

    assert "[task-1 user=None] in the task" in lines.getvalue()
    assert "[None user=None] after it" in lines.getvalue()
    assert logs.request_id.get() is None


@pytest.fixture
def production_lines() -> Iterator[io.StringIO]:
    """What production writes during the test: the JSON console handler, at the levels
    LOGGING gives the root and the named loggers (the handler test above runs at DEBUG)."""
    handler = _configured("json")
    levels = {"": base.LOGGING["root"]["level"]}
    levels.update({name: c["level"] for name, c in base.LOGGING["loggers"].items()})
    old = {name: logging.getLogger(name or None).level for name in levels}
    root = logging.getLogger()
    root.addHandler(handler)
    for name, level in levels.items():
        logging.getLogger(name or None).setLevel(level)
    try:
        yield handler.stream  # type: ignore[attr-defined]
    finally:
        root.removeHandler(handler)
        for name, level in old.items():
            logging.getLogger(name or None).setLevel(level)


@pytest.mark.django_db
def test_bad_hosts_are_short_warnings_without_a_traceback(production_lines, fake_clock) -> None:
    """A refused Host is the client's mistake: 50 of 4 KB each write one short line in all,
    not a 9 KB ERROR with a traceback each, nor a line each (decision 289)."""
    host = "h" * 4096
    for _ in range(50):
        assert Client(HTTP_HOST=host).get("/api/shop-types").status_code == 400

    written = production_lines.getvalue()
    assert len(written.encode()) < 3000
    records = [json.loads(line) for line in written.splitlines()]
    assert len(records) == 1  # the other 49 fell in the same interval
    for record in records:
        assert (record["level"], record["logger"]) == ("WARNING", "django.security.DisallowedHost")
        assert record["status_code"] == 400
        assert "exc_info" not in record
        assert "suppressed" not in record  # nothing was, before it
        assert record["message"].startswith("Invalid HTTP_HOST header: 'hhh")
        assert len(record["message"]) == logs.MESSAGE_LIMIT + 1
        assert record["message"].endswith("hhh…")


def _log_a_server_error() -> None:
    try:
        raise ValueError("boom")
    except ValueError:
        logging.getLogger("django.request").error(
            "Internal Server Error: /x", exc_info=True, extra={"status_code": 500}
        )


@pytest.mark.django_db
def test_the_line_after_the_interval_says_how_many_were_suppressed(
    production_lines, fake_clock
) -> None:
    """Each `django.security.*` logger on its own; a 5xx is never held back."""
    interval = settings.CLIENT_ERROR_LOG_INTERVAL
    bad = Client(HTTP_HOST="bad.example")
    fields = "&".join(f"f{i}=1" for i in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1))
    form = "application/x-www-form-urlencoded"
    for _ in range(30):
        assert bad.get("/api/shop-types").status_code == 400
    assert Client().post("/admin/login/", fields, content_type=form).status_code == 400
    for _ in range(3):
        _log_a_server_error()
    fake_clock.advance(interval - 0.01)
    for _ in range(20):
        assert bad.get("/api/shop-types").status_code == 400  # still within the interval
    fake_clock.advance(0.01)
    assert bad.get("/api/shop-types").status_code == 400

    records = [json.loads(line) for line in production_lines.getvalue().splitlines()]
    assert [(r["logger"], r["level"]) for r in records] == [
        ("django.security.DisallowedHost", "WARNING"),
        ("django.security.TooManyFieldsSent", "WARNING"),  # not held back by the Host's
        ("django.request", "ERROR"),
        ("django.request", "ERROR"),
        ("django.request", "ERROR"),
        ("django.security.DisallowedHost", "WARNING"),
    ]
    assert all("ValueError: boom" in r["exc_info"] for r in records[2:5])
    assert "suppressed" not in records[0]
    assert records[-1]["suppressed"] == 49
    assert records[-1]["message"] == "Invalid HTTP_HOST header: 'bad.example'. " + (
        "You may need to add 'bad.example' to ALLOWED_HOSTS. [49 suppressed]"
    )


def _refusal(logger: logging.Logger) -> logging.LogRecord:
    """A record as Django makes it for a refused Host."""
    return logger.makeRecord(
        logger.name, logging.ERROR, __file__, 0, "bad", (), None, extra={"status_code": 400}
    )


def _refused_at_once(handler: logging.Handler, threads: int, each: int) -> list[int]:
    """How many of `each` refusals passed `handler`'s filters, per thread, when `threads`
    threads refused at once."""
    logger = logging.getLogger("django.security.DisallowedHost")
    start = threading.Barrier(threads)
    passed: list[int] = []

    def refuse() -> None:
        record = _refusal(logger)
        start.wait(timeout=10)
        passed.append(sum(bool(handler.filter(record)) for _ in range(each)))

    running = [threading.Thread(target=refuse) for _ in range(threads)]
    for thread in running:
        thread.start()
    for thread in running:
        thread.join(timeout=30)
    return passed


def test_threads_logging_at_once_lose_no_count(fake_clock) -> None:
    """The servers run several threads per process, all through the one handler: of 8
    threads refusing 5,000 requests each at once, one line is written and the next one
    counts the other 39,999. Without the lock, counts were lost in ~4 rounds of ten."""
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch as often as they can
    try:
        for _ in range(10):
            handler = _configured("json")  # a new process's filter
            assert sorted(_refused_at_once(handler, 8, 5000)) == [0] * 7 + [1]
            fake_clock.advance(settings.CLIENT_ERROR_LOG_INTERVAL)
            handler.handle(_refusal(logging.getLogger("django.security.DisallowedHost")))
            line = json.loads(handler.stream.getvalue())  # type: ignore[attr-defined]
            assert line["suppressed"] == 8 * 5000 - 1
    finally:
        sys.setswitchinterval(switch)


def test_an_interval_of_0_writes_every_line() -> None:
    every = logs.ClientErrorFilter(interval=0)
    record = logging.makeLogRecord(
        {"name": "django.security.DisallowedHost", "levelno": logging.WARNING, "msg": "bad"}
    )
    record.status_code = 400
    assert all(every.filter(record) for _ in range(5))


@pytest.mark.django_db
def test_bad_host_lines_can_be_turned_off_by_their_loggers_level(production_lines) -> None:
    """Django writes them as ERRORs: a logger set to ERROR (docs/operations.md "Logs")
    must still drop them once they are WARNINGs."""
    logger = logging.getLogger("django.security.DisallowedHost")
    logger.setLevel(logging.ERROR)
    try:
        assert Client(HTTP_HOST="bad.example").get("/api/shop-types").status_code == 400
    finally:
        logger.setLevel(logging.NOTSET)
    assert production_lines.getvalue() == ""


@pytest.mark.django_db
def test_other_refused_requests_are_warnings_and_real_errors_keep_their_traceback(
    production_lines,
) -> None:
    fields = "&".join(f"f{i}=1" for i in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1))
    form = "application/x-www-form-urlencoded"
    assert Client().post("/admin/login/", fields, content_type=form).status_code == 400
    assert Client().get("/api/shop-types").status_code == 200  # a normal request: no line
    try:
        raise ValueError("boom")
    except ValueError:
        logging.getLogger("django.request").error(
            "Internal Server Error: /x", exc_info=True, extra={"status_code": 500}
        )

    too_many, failed = (json.loads(line) for line in production_lines.getvalue().splitlines())
    assert too_many["logger"] == "django.security.TooManyFieldsSent"
    assert too_many["level"] == "WARNING"
    assert "exc_info" not in too_many
    assert (failed["level"], failed["status_code"]) == ("ERROR", 500)
    assert "ValueError: boom" in failed["exc_info"]
