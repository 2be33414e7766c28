"""Which database a Redis's data belongs to (decisions 291-293).

Redis holds state made from one database: its users' tokens, copies of its rows, the
flash sale's stock, buyers and accepted orders. Beside another database that state is
served as truth, and it is wrong (a note the database never had, paid orders it does not
hold). So each database has an identity, a random UUID made once (at migrate), and every
Redis the app writes (each cache alias: the main one, and the sale's when it has its
own) carries the identity of the database it was written for, claimed with one
`SET NX GET` by the first process that finds none there.

A process checks at its start (the web entry points, the Celery worker and beat,
seed_demo, `manage.py redis_identity`) and refuses to run on a Redis that names another
database; never per request. The drain checks the sale's Redis again at each run and
before each heal, so a sale emptied mid-run is claimed back, and one taken over by
another database's processes is not healed from this one.
"""

from __future__ import annotations

import logging
import re
import uuid
from typing import cast

from django.apps import apps as global_apps
from django.apps.registry import Apps
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import DEFAULT_DB_ALIAS, DatabaseError, IntegrityError, connections, transaction
from django.db.models import Model

from toolkit.redis import keys
from toolkit.redis.client import DEFAULT, get_redis
from toolkit.redis.outage import OUTAGE_ERRORS

log = logging.getLogger(__name__)

RUNBOOK = 'docs/operations.md, "Redis holds another database\'s data"'
# Where each cache alias's address comes from, for the message (dianping/settings/base.py).
_SETTING = {"default": "REDIS_URL", "seckill": "SECKILL_REDIS_URL"}


# A database or Redis that cannot answer now (down, restarting, not migrated yet).
UNANSWERED: tuple[type[Exception], ...] = (DatabaseError, *OUTAGE_ERRORS)


class RedisOfAnotherDatabase(ImproperlyConfigured):
    """A Redis carries another database's identity: its data is not this database's."""


def identity_model(apps: Apps = global_apps) -> type[Model]:
    """The table that holds the identity, named by settings.DATABASE_IDENTITY_MODEL (the
    project's, as AUTH_USER_MODEL names the user's): the toolkit imports no app."""
    return apps.get_model(settings.DATABASE_IDENTITY_MODEL)


def database_identity(using: str = DEFAULT_DB_ALIAS, model: type[Model] | None = None) -> str:
    """This database's identity, made now if it has none (a new database, or one emptied
    by `flush`); `model` is migrate's historical one when called from post_migrate."""
    rows = (model or identity_model())._default_manager.using(using)
    found = rows.filter(pk=1).values_list("value", flat=True).first()
    if found is None:
        try:
            with transaction.atomic(using=using):
                rows.create(pk=1, value=uuid.uuid4())
        except IntegrityError:
            pass  # another process made it first: theirs is the one
        found = rows.filter(pk=1).values_list("value", flat=True).get()
    return str(found)


def ensure_after_migrate(*, using: str, apps: Apps = global_apps, **kwargs: object) -> None:
    """post_migrate (also sent by `flush`, without `apps`): every migrated database has
    its identity; a no-op once it does."""
    try:
        model = identity_model(apps)
    except LookupError:  # migrated back before the table, or not that far yet
        return
    database_identity(using, model=model)


def redis_aliases() -> list[str]:
    """The cache alias of every Redis the app writes (each is a Redis: django-redis)."""
    return list(settings.CACHES)


def claim(alias: str, identity: str) -> bool:
    """Check that the Redis behind `alias` carries `identity`, writing it there if it
    carries none; True if it was written now. Raises RedisOfAnotherDatabase. An alias
    the deployment did not configure is the default Redis (as for get_redis)."""
    alias = alias if alias in settings.CACHES else DEFAULT
    found = cast(
        "bytes | None", get_redis(alias).set(keys.db_identity(), identity, nx=True, get=True)
    )
    if found is None:
        log.info("Redis %s had no database identity: claimed for %s", describe(alias), identity)
        return True
    if found.decode() != identity:
        raise RedisOfAnotherDatabase(refusal(alias, found.decode(), identity))
    return False


def verify(using: str = DEFAULT_DB_ALIAS) -> dict[str, bool]:
    """Every Redis of the app checked for this database (claimed where it carries no
    identity): {alias: claimed now}. Raises RedisOfAnotherDatabase."""
    identity = database_identity(using)
    return {alias: claim(alias, identity) for alias in redis_aliases()}


def verify_at_start(process: str) -> None:
    """verify() for a process about to serve: a Redis of another database ends it
    (logged, then SystemExit). A database or Redis that does not answer is logged and
    let through, so the process starts degraded as it would have (decision 292)."""
    try:
        verify()
    except RedisOfAnotherDatabase as refused:
        log.critical("%s not started: %s", process, refused)
        raise SystemExit(1) from None
    except UNANSWERED as exc:
        log.warning("%s: Redis not checked against the database (%s)", process, exc)
    finally:
        # Not kept open: a server that forks after loading the app (gunicorn --preload,
        # Celery's prefork pool) would share it between processes.
        connections.close_all()


def refusal(alias: str, found: str, identity: str) -> str:
    setting = _SETTING.get(alias, f"CACHES[{alias!r}]")
    return (
        f"Redis {describe(alias)} ({setting}) holds the data of another database "
        f"(identity {found}), not of this one ({describe_database()}, identity {identity}). "
        "Serving from it would show that database's notes, orders and stock as this one's. "
        f"Point {setting} at this database's own Redis, or empty that Redis (FLUSHDB) if "
        f"what it holds is not needed; see {RUNBOOK}."
    )


def describe(alias: str) -> str:
    """The Redis's address as configured, without a password."""
    return re.sub(r"//[^@/]*@", "//", str(settings.CACHES[alias]["LOCATION"]))


def describe_database(using: str = DEFAULT_DB_ALIAS) -> str:
    db = connections[using].settings_dict
    where = f"{db['HOST']}:{db['PORT']}/" if db.get("HOST") else ""
    return f"{connections[using].vendor} {where}{db['NAME']}"
