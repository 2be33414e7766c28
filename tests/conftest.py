"""Shared fixtures: a real Redis (flushed per test), a controllable clock, the user cast."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
import redis
from django.conf import settings
from django.utils import translation
from rest_framework.test import APIClient

from accounts.models import User
from accounts.sms import locmem
from tests.factories import UserFactory
from tests.factories import default_city as ensure_default_city
from tests.helpers import FakeClock, TokenClient, client_for
from toolkit import clock, runtime
from toolkit.redis.client import get_redis
from vouchers.sale import heal


def pytest_sessionstart(session: pytest.Session) -> None:
    try:
        redis.Redis.from_url(settings.REDIS_URL).ping()
    except redis.RedisError as exc:
        pytest.exit(
            f"Redis at {settings.REDIS_URL} is not reachable ({exc}). "
            "Run the suite with `make test`, which starts one.",
            returncode=3,
        )


@pytest.fixture(autouse=True)
def redis_client() -> redis.Redis:
    """The real test Redis database, empty at the start of every test."""
    client = get_redis()
    # Nothing an earlier test left running may land in this one: buffered views are
    # written, rebuilds finish, watchdogs stop and local copies go, before the flush.
    runtime.reset()
    client.flushdb()
    # An empty Redis beside an empty database agree: the flash-sale shards are verified,
    # as the drain would find them (tests of the healing itself remove the markers).
    for shard in range(settings.SECKILL_SHARDS):
        heal.mark_live(shard)
    return client


_DATABASE_FIXTURES = {"db", "transactional_db", "_django_db_helper"}


@pytest.fixture(autouse=True)
def default_city(request: pytest.FixtureRequest) -> None:
    """A test with the database has the default city, as every migrated database does (the
    cities migration makes it; a transactional test's flush takes it away): reads without
    `city` and new shops without one are of it (decision 392)."""
    if request.node.get_closest_marker("django_db") is None and not (
        _DATABASE_FIXTURES & set(request.fixturenames)
    ):
        return
    request.getfixturevalue("_django_db_helper")
    ensure_default_city()


@pytest.fixture(autouse=True)
def default_language() -> Iterator[None]:
    """Every test starts in the default language: LocaleMiddleware activates each request's
    language for the thread and leaves it, so an English request would leak into later
    tests that call services directly."""
    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.activate(settings.LANGUAGE_CODE)


@pytest.fixture(autouse=True)
def sms_outbox() -> Iterator[list[tuple[str, str]]]:
    locmem.outbox.clear()
    yield locmem.outbox
    locmem.outbox.clear()


@pytest.fixture
def fake_clock() -> Iterator[FakeClock]:
    fake = FakeClock(float(int(time.time())))  # the present, then only moved on purpose
    clock.set_source(fake)
    yield fake
    clock.set_source(None)


@pytest.fixture
def eager_tasks() -> Iterator[None]:
    """Run Celery tasks in-process when enqueued. Only the hop through the broker is
    skipped (tests/platform/test_celery.py and the feed's real-worker test prove that hop);
    Redis and the database stay real."""
    from dianping.celery import app

    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True  # a task that fails fails the test
    yield
    app.conf.task_always_eager = False
    app.conf.task_eager_propagates = False


@pytest.fixture
def api() -> APIClient:
    return APIClient()


@pytest.fixture
def user(db):
    return UserFactory()


@pytest.fixture
def other_user(db):
    return UserFactory()


@pytest.fixture
def staff_user(db):
    return UserFactory(is_staff=True)


@pytest.fixture
def admin_client(client, staff_user):
    """Django's test client logged into admin as a superuser."""
    User.objects.filter(pk=staff_user.pk).update(is_superuser=True)
    client.force_login(staff_user)
    return client


@pytest.fixture
def user_api(user) -> TokenClient:
    return client_for(user)


@pytest.fixture
def staff_api(staff_user) -> TokenClient:
    return client_for(staff_user)
