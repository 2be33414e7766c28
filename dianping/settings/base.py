"""Shared settings. Every deploy-specific value comes from the environment.

The table of variables lives in README.md; defaults suit a laptop.
"""

from __future__ import annotations

import copy
import datetime
from pathlib import Path
from typing import Any

import environ
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent.parent
# Local state: SQLite files, Redis data, SMS outbox (git-ignored). A fresh clone has none and
# SQLite will not create folders: the dev and test settings create it (and the bench targets,
# which run the production settings); a production deploy keeps its state elsewhere.
VAR_DIR = BASE_DIR / "var"

env = environ.Env()

SECRET_KEY = env.str("SECRET_KEY", default="dev-insecure-secret-key-change-me-in-production-0000")
DEBUG = env.bool("DEBUG", default=False)
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "dianping",
    "accounts",
    "shops",
    "vouchers",
    "blogs",
    "follows",
    "signin",
    "merchants",
    "notifications",
    "favourites",
    "rankings",
    "search",
    "traffic",
    "recommendations",
]

MIDDLEWARE = [
    # Outermost, so it times every answer (dianping/metrics.py).
    "toolkit.metrics.RequestMetricsMiddleware",
    # Next, so every answer carries X-Request-ID (and its log lines the id): the request
    # id, body limits, unserved methods and the security headers below (docs/security.md).
    "dianping.middleware.GuardMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The language: the switch's cookie, else Accept-Language, else LANGUAGE_CODE (Django's,
    # its choice remembered per cookie and header: dianping/middleware.py).
    "dianping.middleware.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Django's, the storage made when first used (the admin's pages): dianping/middleware.py.
    "dianping.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

# No inline script anywhere (the web client, the admin and the API docs load theirs from
# files); inline styles stay allowed, as the admin's templates use them. Pictures may be
# https URLs (docs/product/content.md#pictures), or the client's blob: preview of one
# being uploaded. Geolocation for "near me" on our own pages only.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob: https:; connect-src 'self'; font-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
PERMISSIONS_POLICY = (
    "geolocation=(self), camera=(), microphone=(), payment=(), usb=(), serial=(), "
    "bluetooth=(), magnetometer=(), gyroscope=(), accelerometer=(), interest-cohort=()"
)
# JSON bodies here are a few KB (a note is at most 5,000 characters); a picture's upload
# has its own limit (dianping.middleware). Larger bodies are a JSON 413, unread.
DATA_UPLOAD_MAX_MEMORY_SIZE = 1024 * 1024
# A body refused unread is still read and discarded, up to these bounds, so the client
# can finish sending and read its answer (dianping/middleware.py).
BODY_DRAIN_SECONDS = env.float("BODY_DRAIN_SECONDS", default=10.0)
BODY_DRAIN_BYTES = env.int("BODY_DRAIN_BYTES", default=64 * 1024 * 1024)

ROOT_URLCONF = "dianping.urls"
CSRF_FAILURE_VIEW = "dianping.views.csrf_failure"
WSGI_APPLICATION = "dianping.wsgi.application"
ASGI_APPLICATION = "dianping.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database ---------------------------------------------------------------
# SQLite under var/ by default; DATABASE_URL=mysql://user:pass@host:port/name for MariaDB.
DATABASES = {
    "default": env.db_url("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
}
_db = DATABASES["default"]
if _db["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets readers run beside one writer; IMMEDIATE takes the write lock up front
    # so concurrent writers queue on `timeout` instead of failing with "database is locked".
    _db["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
    }
elif _db["ENGINE"] == "django.db.backends.mysql":
    _db["OPTIONS"] = {
        "charset": "utf8mb4",
        "isolation_level": "read committed",
        "init_command": "SET sql_mode='STRICT_TRANS_TABLES'",
    }
    _db["TEST"] = {"CHARSET": "utf8mb4", "COLLATION": "utf8mb4_unicode_ci"}
_db["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)
_db["CONN_HEALTH_CHECKS"] = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_USER_MODEL = "accounts.User"
# The table of the database's identity (toolkit/identity.py reads it by this name).
DATABASE_IDENTITY_MODEL = "dianping.DatabaseIdentity"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# --- Redis ------------------------------------------------------------------
# One Redis for cache, sessions, hot paths and the Celery broker unless told otherwise.
REDIS_PORT = env.int("REDIS_PORT", default=6390)  # of the project-local Redis (scripts/redis.sh)
REDIS_URL = env.str("REDIS_URL", default=f"redis://127.0.0.1:{REDIS_PORT}/0")
CACHES = {
    "default": {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": REDIS_URL,
        "OPTIONS": {
            "CLIENT_CLASS": "django_redis.client.DefaultClient",
            "SOCKET_CONNECT_TIMEOUT": 2,
            "SOCKET_TIMEOUT": 5,
            "CONNECTION_POOL_KWARGS": {"max_connections": 200, "health_check_interval": 30},
            # Connections that fail at once while Redis is known unreachable.
            "CONNECTION_POOL_CLASS": "toolkit.redis.outage.CircuitPool",
        },
    }
}
# REDIS_CLUSTER=true: REDIS_URL names any node of a Redis Cluster, reached through
# redis-py's cluster client (toolkit/redis/cluster.py). Celery's broker stays a single
# Redis (kombu has no Cluster transport): CELERY_BROKER_URL is then required.
REDIS_CLUSTER = env.bool("REDIS_CLUSTER", default=False)
# More nodes to discover the Cluster from (host:port, comma-separated): a process that
# starts while REDIS_URL's node is down (a failover) still finds the others.
REDIS_CLUSTER_NODES = env.list("REDIS_CLUSTER_NODES", default=[])
if REDIS_CLUSTER:
    CACHES["default"]["OPTIONS"]["CLIENT_CLASS"] = "toolkit.redis.cluster.ClusterClient"
# The flash sale's shards on a Redis of their own (vouchers.sale.shard.SALE_REDIS, the cache
# alias "seckill"): in SECKILL_DURABILITY=fsync only that Redis needs `appendfsync always`
# and every other write (a token's refresh on each request) keeps `everysec`.
SECKILL_REDIS_URL = env.str("SECKILL_REDIS_URL", default="")
if SECKILL_REDIS_URL:
    if REDIS_CLUSTER:
        raise ImproperlyConfigured(
            "SECKILL_REDIS_URL is for a single Redis; on a Cluster the sale shares it "
            "(SECKILL_DURABILITY=replica)"
        )
    CACHES["seckill"] = {**copy.deepcopy(CACHES["default"]), "LOCATION": SECKILL_REDIS_URL}
# Admin (username/password) sessions live in Redis too; API clients use bearer tokens.
SESSION_ENGINE = "django.contrib.sessions.backends.cache"


def celery_broker_url(redis_url: str) -> str:
    """kombu spells a Unix-socket Redis "redis+socket://" where redis-py spells it "unix://"."""
    return redis_url.replace("unix://", "redis+socket://", 1)


# --- Internationalisation ----------------------------------------------------
# Simplified Chinese unless the browser asks for English (Accept-Language) or the
# client's switch chose it (the django_language cookie). Catalogs live in locale/;
# `make messages` extracts and compiles them, and the compiled .mo files are committed.
LANGUAGE_CODE = "zh-hans"
LANGUAGES = [("zh-hans", "简体中文"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "locale"]
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600
LANGUAGE_COOKIE_SAMESITE = "Lax"
TIME_ZONE = env.str("TIME_ZONE", default="Asia/Shanghai")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STORAGES: dict[str, dict[str, Any]] = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# Uploaded pictures: local files under var/media by default, served by the app itself
# (MEDIA_SERVE); MEDIA_S3_BUCKET stores them in any S3-compatible store instead, through
# django-storages (credentials from the usual AWS_* environment variables).
MEDIA_ROOT = env.path("MEDIA_ROOT", default=VAR_DIR / "media")
MEDIA_URL = env.str("MEDIA_URL", default="/media/")
MEDIA_S3_BUCKET = env.str("MEDIA_S3_BUCKET", default="")
if MEDIA_S3_BUCKET:
    STORAGES["default"] = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": MEDIA_S3_BUCKET,
            "endpoint_url": env.str("MEDIA_S3_ENDPOINT_URL", default=None),
            "custom_domain": env.str("MEDIA_S3_CUSTOM_DOMAIN", default=None),
            "querystring_auth": False,  # public pictures: plain, cacheable URLs
            "file_overwrite": False,
        },
    }
MEDIA_SERVE = env.bool("MEDIA_SERVE", default=not MEDIA_S3_BUCKET)

# --- DRF ----------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["accounts.authentication.RedisTokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_PAGINATION_CLASS": "toolkit.api.pagination.PageNumberPagination",
    "PAGE_SIZE": 10,
    "EXCEPTION_HANDLER": "toolkit.api.exceptions.exception_handler",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["toolkit.api.parsers.BoundedJSONParser"],
    "DEFAULT_SCHEMA_CLASS": "toolkit.api.schema.ApiSchema",
    "DEFAULT_THROTTLE_RATES": {
        "sms_ip": env.str("THROTTLE_SMS_IP", default="20/hour"),
        "login_ip": env.str("THROTTLE_LOGIN_IP", default="30/minute"),
        # Searches: per client address for anonymous callers, per user for signed-in ones.
        "search_ip": env.str("THROTTLE_SEARCH_IP", default="60/minute"),
        "search_user": env.str("THROTTLE_SEARCH_USER", default="120/minute"),
        # Per user: writes one can repeat cheaply (docs/product/limits.md#cheap-writes).
        "blog_user": env.str("THROTTLE_BLOG_USER", default="10/hour"),
        "comment_user": env.str("THROTTLE_COMMENT_USER", default="5/10seconds"),  # seed 001
        "reply_user": env.str("THROTTLE_REPLY_USER", default="5/10seconds"),  # as comments
        "like_user": env.str("THROTTLE_LIKE_USER", default="60/minute"),
        "helpful_user": env.str("THROTTLE_HELPFUL_USER", default="60/minute"),
        "follow_user": env.str("THROTTLE_FOLLOW_USER", default="30/minute"),
        "profile_user": env.str("THROTTLE_PROFILE_USER", default="30/hour"),
        "report_user": env.str("THROTTLE_REPORT_USER", default="20/hour"),
        "claim_user": env.str("THROTTLE_CLAIM_USER", default="20/minute"),
        "challenge_user": env.str("THROTTLE_CHALLENGE_USER", default="20/minute"),
        "checkout_user": env.str("THROTTLE_CHECKOUT_USER", default="20/minute"),
        "redeem_user": env.str("THROTTLE_REDEEM_USER", default="60/minute"),
        "upload_user": env.str("THROTTLE_UPLOAD_USER", default="60/hour"),
        "notification_read_user": env.str("THROTTLE_NOTIFICATION_READ_USER", default="60/minute"),
        "watch_user": env.str("THROTTLE_WATCH_USER", default="30/minute"),
        "favourite_user": env.str("THROTTLE_FAVOURITE_USER", default="60/minute"),
        # A client asks for one each time it (re)opens its notification stream.
        "stream_ticket_user": env.str("THROTTLE_STREAM_TICKET_USER", default="30/minute"),
        # Merchants: shop claims (an operator reads each), an owner's staff and profile
        # changes, and offers.
        "shop_claim_user": env.str("THROTTLE_SHOP_CLAIM_USER", default="10/hour"),
        "shop_staff_user": env.str("THROTTLE_SHOP_STAFF_USER", default="30/minute"),
        "shop_offer_user": env.str("THROTTLE_SHOP_OFFER_USER", default="30/minute"),
        # Failed admin sign-ins, per client IP and per username from that IP (never per
        # username alone: anyone could lock the operators out).
        "admin_login_ip": env.str("THROTTLE_ADMIN_LOGIN_IP", default="20/15minutes"),
        "admin_login_user_ip": env.str("THROTTLE_ADMIN_LOGIN_USER_IP", default="10/15minutes"),
        # Codes that match nothing a redeemer may redeem: guessing, or a typo.
        "redeem_miss_user": env.str("THROTTLE_REDEEM_MISS_USER", default="10/10minutes"),
    },
    # Number of trusted reverse proxies in front of the app (for the client IP).
    "NUM_PROXIES": env.int("NUM_PROXIES", default=0),
}
# An IPv6 client's limits count by its network of this many bits: every host has a /64 of
# addresses to pick from (toolkit.api.clients; 128 counts each address alone).
CLIENT_IPV6_PREFIX = env.int("CLIENT_IPV6_PREFIX", default=64)
if not 0 <= CLIENT_IPV6_PREFIX <= 128:
    raise ImproperlyConfigured("CLIENT_IPV6_PREFIX must be a prefix length from 0 to 128")
SPECTACULAR_SETTINGS = {
    "TITLE": "Dianping API",
    # How to try the protected operations from /api/docs/ (decision 468).
    "DESCRIPTION": """Shops, reviews, follows, feeds, sign-in streaks and coupon flash sales.

**Trying operations that need a login** (a lock icon): get a token, then authorize.

1. Request a code: `POST /api/auth/code` with `{"phone": "13800000001"}` (Try it out, Execute).
   No code is sent anywhere real: with `make run`, the code is printed in its terminal, on
   a line of its own that starts `==> SMS to 13800000001:`.
2. Log in: `POST /api/auth/login` with `{"phone": "13800000001", "code": "<the 6 digits>"}`.
   Copy the `token` from the answer (without the quotes).
3. Click **Authorize** (top right), paste the token alone into `bearerAuth`: the docs
   send it as `Authorization: Bearer <token>` (with curl, write that header yourself).
   Click Authorize, then Close.

A token lasts 30 minutes and every request with it renews that. Without SMS, an operator
takes one with `.venv/bin/python manage.py issue_tokens --phone 13800000001`.""",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
}

# --- Accounts -------------------------------------------------------------------
AUTH_TOKEN_TTL = env.int("AUTH_TOKEN_TTL", default=30 * 60)  # seconds, refreshed on every use
AUTH_CODE_TTL = 2 * 60
USER_CACHE_TTL = 30 * 60  # a user as others see them (accounts.caches), plus jitter
USER_NEAR_CACHE_TTL = env.float("USER_NEAR_CACHE_TTL", default=30.0)  # in-process; 0 = off
AUTH_CODE_MAX_ATTEMPTS = 5
# (limit, window seconds) pairs applied together to each phone number.
SMS_PHONE_LIMITS = [(1, 60), (10, 24 * 60 * 60)]
# "console", "file", "locmem" or a dotted path to a backend class.
SMS_BACKEND = env.str("SMS_BACKEND", default="console")
SMS_FILE_PATH = env.path("SMS_FILE_PATH", default=VAR_DIR / "sms")

# --- Celery -----------------------------------------------------------------------
if REDIS_CLUSTER and "CELERY_BROKER_URL" not in env.ENVIRON:
    raise ImproperlyConfigured("REDIS_CLUSTER needs CELERY_BROKER_URL: a single Redis")
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default=celery_broker_url(REDIS_URL))
CELERY_TASK_DEFAULT_QUEUE = "celery"  # Celery's default, named: /metrics reports its length
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_TIME_LIMIT = 5 * 60
CELERY_TASK_SOFT_TIME_LIMIT = 4 * 60
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 60 * 60}
# kombu's Redis transport, made to survive a restart of the broker (see dianping/broker.py).
CELERY_BROKER_TRANSPORT = "dianping.broker:Transport"
CELERY_TIMEZONE = TIME_ZONE
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
HEARTBEAT_INTERVAL = env.float("HEARTBEAT_INTERVAL", default=30.0)
CELERY_BEAT_SCHEDULE = {
    "heartbeat": {"task": "dianping.tasks.heartbeat", "schedule": HEARTBEAT_INTERVAL},
}
# What /api/health checks besides the database and Redis: functions returning (fields to
# report, healthy?), each app's own.
# Who is calling, for fast-path reads in apps that accounts depends on (toolkit.api.viewer).
API_VIEWER = "accounts.tokens.touch_with"
# Counts a page view for apps that traffic's layer holds as siblings (toolkit.api.pageviews).
API_PAGE_VIEWS = "traffic.visitors.count_page"
HEALTH_CHECKS = [
    "dianping.tasks.heartbeat_health",
    "vouchers.sale.drain.drain_health",
    "vouchers.sale.durability.durability_health",
]

# --- Metrics (dianping/metrics.py, docs/operations.md "Metrics") -----------------------
# /metrics answers only `Authorization: Bearer <METRICS_TOKEN>`; 404 while it is empty.
METRICS_TOKEN = env.str("METRICS_TOKEN", default="")
# Gauges read from Redis and the database at scrape time: functions returning metric
# families, each app's own (like HEALTH_CHECKS).
METRICS_COLLECTORS = [
    "dianping.metrics.health_metrics",
    "dianping.metrics.periodic_task_metrics",
    "vouchers.sale.gauges.sale_metrics",
    "notifications.metrics.stream_metrics",
    "shops.metrics.bloom_metrics",
]
# Periodic tasks (beat entries) whose last success /metrics reports, each with the age of
# that success (seconds) past which the alert calls it late, exported beside it: each task
# records it at the end of a run (toolkit.periodic.task_succeeded). A threshold is a few of
# the task's intervals (decision 420).
METRICS_PERIODIC_TASKS: dict[str, float] = {
    "notify-shop-sales": 10 * 60,  # every minute
    "compute-rankings": 3 * 60 * 60,  # every hour (computing only once a week)
}
# prometheus-client's multiprocess mode: every process of a host writes its counters to
# files in this directory (read from the environment by the library itself, at import),
# and /metrics sums them. Whoever starts the host's processes empties it first
# (scripts/run.sh; a deploy's ExecStartPre). Unset: each process counts on its own.
PROMETHEUS_MULTIPROC_DIR = env.str("PROMETHEUS_MULTIPROC_DIR", default="")
if PROMETHEUS_MULTIPROC_DIR:
    Path(PROMETHEUS_MULTIPROC_DIR).mkdir(parents=True, exist_ok=True)

# --- Logging ------------------------------------------------------------------------
# One line per record on stderr, each with the request id (X-Request-ID, or a Celery
# task's id) and the user id where a token told it (toolkit/logs.py). `plain` reads well
# in a terminal; `json` (python-json-logger: one object per line) is production's default.
# docs/operations.md "Logs".
# A `django.security.*` logger (a refused Host, too many fields) writes at most one line
# per this many seconds per process, the next saying how many it dropped; 0 = every line.
CLIENT_ERROR_LOG_INTERVAL = env.float("CLIENT_ERROR_LOG_INTERVAL", default=10.0)
LOGGING: dict[str, Any] = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "request": {"()": "toolkit.logs.RequestContextFilter"},
        # A client's 4xx: one short WARNING, no traceback, rate-limited (decision 289).
        "client_errors": {
            "()": "toolkit.logs.ClientErrorFilter",
            "interval": CLIENT_ERROR_LOG_INTERVAL,
        },
    },
    "formatters": {
        "plain": {
            "format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s user=%(user_id)s] "
            "%(message)s"
        },
        "json": {
            "()": "toolkit.logs.JsonFormatter",  # python-json-logger's
            "fmt": ["levelname", "name", "message", "request_id", "user_id"],
            "rename_fields": {"levelname": "level", "name": "logger"},
            "timestamp": "time",  # ISO 8601, UTC, with microseconds
            "json_ensure_ascii": False,  # shop names and messages stay readable UTF-8
        },
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": env.str("LOG_FORMAT", default="plain"),
            "filters": ["request", "client_errors"],
        }
    },
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        # 4xx are business answers (sold out, duplicate, 429), tens of thousands a second in
        # a flash sale: log 5xx only; access logs are the HTTP server's job.
        "django.request": {"level": env.str("REQUEST_LOG_LEVEL", default="ERROR")},
    },
}
# Celery workers write through the same handler (so in JSON, with the task id) instead of
# replacing it with their own.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

# --- Shops ------------------------------------------------------------------------
SHOP_CACHE_TTL = env.int("SHOP_CACHE_TTL", default=30 * 60)  # seconds, plus up to 20% jitter
SHOP_CACHE_NULL_TTL = 2 * 60  # how long "no such shop" is remembered
SHOP_NEAR_CACHE_TTL = env.float("SHOP_NEAR_CACHE_TTL", default=30.0)  # in-process copies; 0 = off
SHOP_TYPE_CACHE_TTL = 24 * 60 * 60
# The city (its code) a per-city read without `city` is of: what every client before cities
# read (decision 392). The city list is cached like the types, near copies included.
DEFAULT_CITY = env.str("DEFAULT_CITY", default="shanghai")
CITY_CACHE_TTL = 24 * 60 * 60
SHOP_BLOOM_CAPACITY = env.int("SHOP_BLOOM_CAPACITY", default=1_000_000)
# The filter watched (decisions 490-492): `watch-shop-bloom` rebuilds it at SHOP_BLOOM_GROWTH
# times its capacity once its estimated fill (ids / capacity) passes SHOP_BLOOM_REBUILD_FILL;
# the alert DianpingBloomFalsePositives fires at half of SHOP_BLOOM_MAX_FALSE_POSITIVE_RATE
# (its designed rate at full capacity is 0.001; at fill 1.5 about 0.01).
SHOP_BLOOM_REBUILD_FILL = env.float("SHOP_BLOOM_REBUILD_FILL", default=0.8)
SHOP_BLOOM_GROWTH = 2
SHOP_BLOOM_MAX_FALSE_POSITIVE_RATE = env.float("SHOP_BLOOM_MAX_FALSE_POSITIVE_RATE", default=0.01)
# Hot shops preheated by beat (shops/preheat.py, decisions 487-489): the most viewed of the
# last day and every shop with a running sale (SHOP_PREHEAT_SOURCES: functions returning
# shop ids, each app's own), stored fresh for SHOP_PREHEAT_TTL (longer than the interval, so
# the next run refreshes an entry before it goes stale) and kept SHOP_PREHEAT_KEEP.
SHOP_PREHEAT_INTERVAL = env.float("SHOP_PREHEAT_INTERVAL", default=5 * 60.0)
METRICS_PERIODIC_TASKS["preheat-hot-shops"] = 4 * SHOP_PREHEAT_INTERVAL  # late: 4 missed
SHOP_BLOOM_WATCH_INTERVAL = 15 * 60.0
METRICS_PERIODIC_TASKS["watch-shop-bloom"] = 4 * SHOP_BLOOM_WATCH_INTERVAL
SHOP_PREHEAT_TTL = 3 * SHOP_PREHEAT_INTERVAL
SHOP_PREHEAT_KEEP = 24 * 60 * 60
SHOP_PREHEAT_TOP = env.int("SHOP_PREHEAT_TOP", default=200)
SHOP_PREHEAT_SOURCES = ["vouchers.selectors.shops_on_sale"]
SHOP_NEARBY_RADIUS_M = 5000
# "Guess you like" (recommendations/): how long a process keeps the popular shops near a
# point (the fallback for a reader with no history; without a point, the chosen city's
# centre), and a shop's neighbour list (0: off).
RECS_POPULAR_TTL = env.float("RECS_POPULAR_TTL", default=60.0)
RECS_NEIGHBOURS_TTL = env.float("RECS_NEIGHBOURS_TTL", default=30.0)
# The shop list's open_now=true without a point: how many shops with hours, in the list's
# order, are looked at for the open ones (decision 323). Near a point every hit is.
SHOP_OPEN_NOW_SCAN = 500
# Where search queries go (search/backends.py): the database's own inverted index by default.
SEARCH_BACKEND = env.str("SEARCH_BACKEND", default="search.backends.DatabaseBackend")
VISITS_FLUSH_INTERVAL = env.float("VISITS_FLUSH_INTERVAL", default=0.5)  # seconds
# Anonymous visitor ids that count as visitors of their own, per client address per day;
# beyond, the address counts once (a script sending new ids cannot inflate UV). A NAT
# with more anonymous visitors than this counts as this many plus one.
ANON_VISITORS_PER_ADDRESS = env.int("ANON_VISITORS_PER_ADDRESS", default=100)

# --- Rankings (rankings/, docs/rankings.md) ----------------------------------------------
# A shop is ranked with at least this many reviewers (one per user); the Bayesian prior's
# weight (ratings worth of the city's mean); the popularity terms' weights and windows;
# how many shops a list keeps.
RANKING_MIN_REVIEWS = env.int("RANKING_MIN_REVIEWS", default=3)
RANKING_PRIOR_WEIGHT = env.float("RANKING_PRIOR_WEIGHT", default=10.0)
RANKING_REVIEW_WEIGHT = 0.2
RANKING_FAVOURITE_WEIGHT = 0.15
RANKING_VIEW_WEIGHT = 0.1
RANKING_FAVOURITE_DAYS = 30
RANKING_VIEW_DAYS = 7
RANKING_TOP = env.int("RANKING_TOP", default=50)
CELERY_BEAT_SCHEDULE.update(
    {
        # Hourly, computing only a city whose lists are not of this week yet (decision 411).
        "compute-rankings": {
            "task": "rankings.tasks.compute_rankings",
            "schedule": 60 * 60.0,
            "options": {"expires": 55 * 60},
        }
    }
)

# --- Uploaded pictures (pictures/imagework.py) ----------------------------------------
IMAGE_WORK_QUEUE = env.int("IMAGE_WORK_QUEUE", default=1)  # pictures waiting, per process
IMAGE_WORK_NICE = env.int("IMAGE_WORK_NICE", default=19)  # the image process's nice increment
IMAGE_WORK_RETRY_AFTER = 2  # seconds, in the 503 of an upload refused for a full queue

# --- Vouchers and the flash sale -----------------------------------------------------
SECKILL_SHARDS = env.int("SECKILL_SHARDS", default=4)  # order streams; voucher id mod N
# A new sale of at least this much stock is split into SECKILL_AUTO_BUCKETS buckets on
# different shards (masters, on a Cluster) unless it names its own `buckets`; 0: never
# (vouchers/sale/buckets.py, decision 309).
SECKILL_BUCKETS_FROM_STOCK = env.int("SECKILL_BUCKETS_FROM_STOCK", default=0)
SECKILL_AUTO_BUCKETS = env.int("SECKILL_AUTO_BUCKETS", default=min(3, SECKILL_SHARDS))
if not 1 <= SECKILL_AUTO_BUCKETS <= SECKILL_SHARDS or SECKILL_BUCKETS_FROM_STOCK < 0:
    raise ImproperlyConfigured(
        "SECKILL_AUTO_BUCKETS must be 1 to SECKILL_SHARDS, SECKILL_BUCKETS_FROM_STOCK >= 0"
    )
SECKILL_PREHEAT_DAYS = 30  # how far ahead the activity list looks
SECKILL_ACTIVITIES_TTL = 60.0  # logical expiry of the preheated list, seconds
# How old each process's copy of the list, with its remaining stock, may be when it
# answers `GET /api/vouchers/activities` (no round trip then); the sale itself is exact.
SECKILL_ACTIVITIES_MAX_AGE = env.float("SECKILL_ACTIVITIES_MAX_AGE", default=0.5)
# Voucher documents, shops' voucher ids, users' orders: evicted by every write of them.
VOUCHER_CACHE_TTL = 30 * 60  # seconds, plus up to 20% jitter
VOUCHER_NEAR_CACHE_TTL = env.float("VOUCHER_NEAR_CACHE_TTL", default=30.0)  # in-process; 0 = off
MY_ORDERS_CACHED = 200  # a user's orders cached for "my vouchers"; more: read from the database
CELERY_BEAT_SCHEDULE.update(
    {
        "update-activity-status": {
            "task": "vouchers.tasks.update_activity_status",
            "schedule": 60.0,
        },
        "preheat": {"task": "vouchers.tasks.preheat", "schedule": 60.0},
        # A shop's `sold` follows its paid coupons this many seconds later (vouchers.coupons.sold).
        "count-sold": {"task": "vouchers.tasks.count_sold", "schedule": 10.0},
    }
)
# Per user (per shard): a burst of 5 attempts, then 2 a second; checked inside the sale script.
SECKILL_FUNNEL_CAPACITY = 5
SECKILL_FUNNEL_PER_SECOND = 2.0
# A sale's challenge (vouchers/sale/challenge.py): how long a fetched one can be answered.
SECKILL_CHALLENGE_TTL = 180
SECKILL_SOLD_OUT_FLAG_TTL = 1.0  # seconds a process remembers "sold out" before asking Redis
# Admission before Redis (vouchers/sale/admission.py): grabs a second each web process lets
# through to the sale script per voucher, after a burst (0: one second of the rate); the
# rest answer 429 from memory. 0 = no limit. Size it in docs/operations.md.
SECKILL_ADMISSION_RATE = env.float("SECKILL_ADMISSION_RATE", default=0.0)
SECKILL_ADMISSION_BURST = env.int("SECKILL_ADMISSION_BURST", default=0)
if SECKILL_ADMISSION_RATE < 0 or SECKILL_ADMISSION_BURST < 0:
    raise ImproperlyConfigured("SECKILL_ADMISSION_RATE and SECKILL_ADMISSION_BURST must be >= 0")
ORDER_PAY_TIMEOUT = env.int("ORDER_PAY_TIMEOUT", default=15 * 60)  # seconds to pay
# How long past its pay timeout an unpaid order may stay before the backstop cancels it
# (its job, in Redis, normally does it on time; the drain schedules it a little later).
ORDER_OVERDUE_GRACE = 5 * 60
# A refunded flash-sale unit goes back to Redis right after commit; if that fails, the
# order's job tries again this many seconds later (and until Redis agrees).
ORDER_RELEASE_RETRY = 60
SECKILL_DRAIN_BATCH = env.int("SECKILL_DRAIN_BATCH", default=500)  # orders per transaction
SECKILL_MAX_DELIVERIES = 5  # own failures after which an order goes to the dead-letter stream
SECKILL_CLAIM_IDLE_MS = 30_000  # other consumers' unacked entries are reclaimed after this
SECKILL_DRAIN_INTERVAL = 10.0  # beat starts a drain task this often (seconds)
# How an accepted order survives a Redis crash: fsync (Redis answers once its AOF is on
# disk), replica (a replica confirms each order, WAIT), none (everysec: about the last
# second can be lost). See vouchers/sale/durability.py and docs/operations.md.
SECKILL_DURABILITY = env.str("SECKILL_DURABILITY", default="fsync")
if SECKILL_DURABILITY not in ("fsync", "replica", "none"):
    raise ImproperlyConfigured("SECKILL_DURABILITY must be fsync, replica or none")
SECKILL_REPLICA_WAIT_MS = env.int("SECKILL_REPLICA_WAIT_MS", default=200)  # then a 503
# /api/health answers 503 once an accepted order has waited this long to be persisted.
SECKILL_DRAIN_STALL_SECONDS = env.float("SECKILL_DRAIN_STALL_SECONDS", default=60.0)
if SECKILL_DRAIN_STALL_SECONDS <= SECKILL_DRAIN_INTERVAL:
    # A healthy drain may leave an order waiting a whole interval (beat starts the first
    # drain one interval after it starts): less would call it stalled (decision 296).
    raise ImproperlyConfigured(
        "SECKILL_DRAIN_STALL_SECONDS must exceed the drain's interval, "
        f"{SECKILL_DRAIN_INTERVAL:g} s"
    )
# After a pass in which no shard filled a batch, the drain waits this long before reading
# again: the price is at most this much more accept-to-persist lag (docs/benchmarks.md).
SECKILL_DRAIN_LINGER = env.float("SECKILL_DRAIN_LINGER", default=0.2)
# How long one drain task loops: until just before beat starts the next one.
SECKILL_DRAIN_LOOP_SECONDS = env.float(
    "SECKILL_DRAIN_LOOP_SECONDS", default=SECKILL_DRAIN_INTERVAL - 0.5
)
CELERY_BEAT_SCHEDULE.update(
    {
        "drain-seckill-orders": {
            "task": "vouchers.tasks.drain_seckill_orders",
            "schedule": SECKILL_DRAIN_INTERVAL,
        },
        "settle-due-orders": {"task": "vouchers.tasks.settle_due_orders", "schedule": 10.0},
        "cancel-overdue-orders": {"task": "vouchers.tasks.cancel_overdue_orders", "schedule": 60.0},
    }
)

# --- Blogs, follows and the feed ------------------------------------------------------
BLOG_PAGE_TTL = env.int("BLOG_PAGE_TTL", default=10 * 60)  # seconds, plus up to 50% jitter
# Idempotency-Key on note creation (toolkit.api.idempotency): answers kept 24 h; a racing
# duplicate waits this long for the first request before a 409; the first's lock lease.
IDEMPOTENCY_TTL = env.int("IDEMPOTENCY_TTL", default=24 * 60 * 60)
IDEMPOTENCY_WAIT = env.float("IDEMPOTENCY_WAIT", default=5.0)
IDEMPOTENCY_LOCK_TTL = env.int("IDEMPOTENCY_LOCK_TTL", default=30)
BLOG_CACHE_TTL = env.int("BLOG_CACHE_TTL", default=10 * 60)  # a blog's detail, plus jitter
BLOG_CACHE_JITTER = 0.5  # up to 50 % more, at random: entries made together expire apart
BLOG_CACHE_NULL_TTL = 60  # how long "no such blog" is remembered
BLOG_NEAR_CACHE_TTL = env.float("BLOG_NEAR_CACHE_TTL", default=30.0)  # in-process; 0 = off
BLOG_HOT_CACHE_TTL = 10 * 60  # the hot list's ids, evicted by every like and new blog
BLOG_PAGE_LOCK_WAIT = 0.2  # a reader's wait for a page another reader is building
BLOG_REBUILD_LOCK_WAIT = 10.0  # the rebuild task's wait (it retries after that)
FEED_INBOX_MAX = env.int("FEED_INBOX_MAX", default=1000)  # newest items kept per inbox
# Authors with more followers than this are not pushed to every inbox: their followers'
# feeds pull their blogs at read time (the push-pull feed).
FEED_PUSH_MAX_FOLLOWERS = env.int("FEED_PUSH_MAX_FOLLOWERS", default=5000)
FEED_PUSH_BATCH = 500  # followers per push task run
FEED_BACKFILL = 20  # recent blogs a new follow brings into the inbox
# Active fans: a pulled author's blogs are still pushed to the followers who read their
# feed within the last FEED_ACTIVE_DAYS days, at most FEED_ACTIVE_FANS_MAX per author (the
# most recent kept); a reader is marked at most once per FEED_ACTIVE_MARK_EVERY seconds.
FEED_ACTIVE_DAYS = env.int("FEED_ACTIVE_DAYS", default=7)
FEED_ACTIVE_FANS_MAX = env.int("FEED_ACTIVE_FANS_MAX", default=2000)
FEED_ACTIVE_MARK_EVERY = env.int("FEED_ACTIVE_MARK_EVERY", default=3600)
# A blog whose push has not finished this long after it was made is pushed again (its
# task was never enqueued, or gave up), and again each interval until it finishes: the
# sweep runs every minute, SWEEP_BATCH at a time.
FEED_PUSH_RETRY_AFTER = env.float("FEED_PUSH_RETRY_AFTER", default=120.0)  # seconds
FEED_PUSH_SWEEP_BATCH = 200
CELERY_BEAT_SCHEDULE.update(
    {
        "push-unpushed-blogs": {
            "task": "blogs.tasks.push_unpushed_blogs",
            "schedule": 60.0,
            "options": {"expires": 55},  # sweeps queued during an outage are dropped, not piled
        }
    }
)

# --- Notifications ---------------------------------------------------------------------
NOTIFICATIONS_MAX = env.int("NOTIFICATIONS_MAX", default=200)  # newest kept per user
NOTIFICATIONS_BATCH = 500  # rows a beat job's query takes at a time
# Comments one user's comments tell another user at most in an hour (decision 287); past
# it they still post but tell nothing. 0: no cap.
NOTIFICATIONS_COMMENTS_PER_HOUR = env.int("NOTIFICATIONS_COMMENTS_PER_HOUR", default=20)
# The stream of the unread count and new notifications (notifications/stream.py), served
# by an ASGI process of its own (scripts/stream.sh; docs/operations.md "Notification
# stream"). Where clients open it, as a stream ticket's answer tells them: a path on this
# origin (a reverse proxy routes it to the stream process), `:<port>/<path>` for the
# page's own host on another port (`make run`), or a full URL.
NOTIFICATIONS_STREAM_URL = env.str("NOTIFICATIONS_STREAM_URL", default="/api/notifications/stream")
# Seconds between keep-alive comments on a quiet stream (proxies drop idle connections,
# often after 60 s); a stream's token is checked, and refreshed, as often.
NOTIFICATIONS_STREAM_HEARTBEAT = env.float("NOTIFICATIONS_STREAM_HEARTBEAT", default=15.0)
# Threads of a stream process that read the database, each for one query at a time.
NOTIFICATIONS_STREAM_DB_THREADS = env.int("NOTIFICATIONS_STREAM_DB_THREADS", default=4)
CELERY_BEAT_SCHEDULE.update(
    {
        "remind-expiring-coupons": {
            "task": "notifications.tasks.remind_expiring_coupons",
            "schedule": 10 * 60.0,
            "options": {"expires": 9 * 60},  # runs missed in an outage are dropped, not piled
        },
        "remind-starting-sales": {
            "task": "notifications.tasks.remind_starting_sales",
            "schedule": 60.0,
            "options": {"expires": 55},
        },
        "notify-shop-sales": {
            "task": "notifications.tasks.notify_shop_sales",
            "schedule": 60.0,
            "options": {"expires": 55},
        },
    }
)
CELERY_BEAT_SCHEDULE.update(
    {
        # Shops preheated in the cache (decision 487).
        "preheat-hot-shops": {
            "task": "shops.tasks.preheat_hot_shops",
            "schedule": SHOP_PREHEAT_INTERVAL,
            "options": {"expires": SHOP_PREHEAT_INTERVAL - 5},
        },
        # The shop-id Bloom filter watched, rebuilt larger when full (decision 490).
        "watch-shop-bloom": {
            "task": "shops.tasks.watch_shop_bloom",
            "schedule": SHOP_BLOOM_WATCH_INTERVAL,
            "options": {"expires": SHOP_BLOOM_WATCH_INTERVAL - 5},
        },
    }
)

# --- Sign-in and statistics ---------------------------------------------------------
SIGN_STREAK_MAX_MONTHS = 36  # how far back a streak is counted (bounded work per read)
# No sign-in bitmap is older than this month: a total is recounted from here (decision 494).
SIGN_FIRST_MONTH = datetime.date(2020, 1, 1)
STATS_MAX_DAYS = 92  # widest UV/PV window one request may merge

# --- Merchants -------------------------------------------------------------------------
# How long a shop's cached closed days and rating trend live at most (seconds from the
# first store): a backstop, since the writes that change them evict them (decision 400).
DASHBOARD_CACHE_TTL = env.int("DASHBOARD_CACHE_TTL", default=60 * 60)
