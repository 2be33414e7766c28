"""Test settings: a dedicated Redis database that the suite flushes, in-process SMS outbox."""

import atexit
import os
import shutil
import tempfile

from .base import *  # noqa: F403
from .base import CACHES, MIDDLEWARE, REST_FRAMEWORK, VAR_DIR, celery_broker_url, env

VAR_DIR.mkdir(exist_ok=True)  # the SQLite test database lives there

# Metrics in multiprocess mode, as every server runs them, in a directory of this test run:
# set before anything imports prometheus-client (it reads the variable at import), and
# inherited by the processes the suite starts, which so add to the same scrape.
if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="dianping-metrics-")
    atexit.register(shutil.rmtree, os.environ["PROMETHEUS_MULTIPROC_DIR"], ignore_errors=True)
PROMETHEUS_MULTIPROC_DIR = os.environ["PROMETHEUS_MULTIPROC_DIR"]
METRICS_TOKEN = "test-metrics-token"

DEBUG = False
# Every JSON answer of the suite is checked to be UTF-8 with no escaped non-ASCII text.
MIDDLEWARE = ["tests.guards.UnescapedJsonGuard", *MIDDLEWARE]
# The test Redis of scripts/redis.sh (its own server: a test may restart it, and every test
# flushes it), never the one `make run` serves from.
TEST_REDIS_PORT = env.int("TEST_REDIS_PORT", default=6391)
REDIS_URL = env.str("TEST_REDIS_URL", default=f"redis://127.0.0.1:{TEST_REDIS_PORT}/15")
CACHES["default"]["LOCATION"] = REDIS_URL
# The sale shares the test Redis (a shell's SECKILL_REDIS_URL must not reach `make run`'s);
# tests/platform/test_chaos.py gives a stack's sale a Redis of its own.
CACHES.pop("seckill", None)
SECKILL_REDIS_URL = ""
# On a cluster (make test-cluster) the broker is the single test Redis, as in production.
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default=celery_broker_url(REDIS_URL))
SMS_BACKEND = "locmem"
MEDIA_ROOT = VAR_DIR / "test-media"  # pictures of the suite, never `make run`'s
SMS_FILE_PATH = VAR_DIR / "test-sms"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Generous limits, so tests that repeat a request are never throttled unless they say so.
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] = dict.fromkeys(
    REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "1000/minute"
)
LOGGING = {"version": 1, "disable_existing_loggers": False}
# A test reads what it just wrote; the one about the snapshot turns it on.
SECKILL_ACTIVITIES_MAX_AGE = 0.0
# The test Redis writes its AOF every second (fsync on every write would slow the suite);
# the modes' own tests set theirs.
SECKILL_DURABILITY = "none"
# No notification stream: the browser tests' live server is the WSGI app alone, and the
# bell polls; the tests of the stream start its process (or call it) themselves.
NOTIFICATIONS_STREAM_URL = ""

if DATABASES["default"]["NAME"] == str(VAR_DIR / "db.sqlite3"):  # noqa: F405
    # Never `make run`'s database, not even from a process started outside pytest's switch.
    DATABASES["default"]["NAME"] = str(VAR_DIR / "test-default.sqlite3")  # noqa: F405
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    # A file, not :memory:, so concurrency tests can share it across threads and processes;
    # one per test Redis, so two suites on two Redis ports can run side by side.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / f"test-{TEST_REDIS_PORT}.sqlite3")}  # noqa: F405
