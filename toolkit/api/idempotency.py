"""`Idempotency-Key` for writes answered from Redis: the same user and key within
IDEMPOTENCY_TTL get the first request's answer (status and body) again instead of a
second write, racing duplicates included. The first request holds a lock while it runs;
a duplicate waits for it (up to IDEMPOTENCY_WAIT seconds) and then replays its answer,
or gets a 409 `idempotency_in_progress`. The same key with another body is a 409
`idempotency_key_reused`. Only successes are kept: after a refusal or an error the key is
free, so a corrected retry with the same key goes through. A replay of something deleted
since is a 409 `idempotency_key_spent`, never an id that leads nowhere.

A replay of a stored answer writes nothing, so it is answered whatever the write limits
say: a view's `is_replay` asks `stored` before its throttles run (decision 282).

Redis is the store: after Redis loses its data, or past the TTL, a retry writes again."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from typing import Any

import orjson
from django.conf import settings
from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiParameter
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from toolkit.errors import Code, Conflict
from toolkit.redis import keys
from toolkit.redis.client import get_redis
from toolkit.redis.lock import RedisLock

KEY_PATTERN = "^[!-~]{1,64}$"  # visible ASCII
_KEY = re.compile(KEY_PATTERN, re.ASCII)
REPLAYED = "Idempotent-Replayed"


def header_parameter(description: str) -> OpenApiParameter:
    return OpenApiParameter(
        "Idempotency-Key",
        {"type": "string", "pattern": KEY_PATTERN},
        OpenApiParameter.HEADER,
        required=False,
        description=description,
    )


def idempotency_key(request: Request) -> str | None:
    """The request's key: 1 to 64 visible ASCII characters, else a 400."""
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    if not _KEY.fullmatch(key):
        raise ValidationError({"Idempotency-Key": [gettext("1 to 64 visible ASCII characters.")]})
    return key


def stored(request: Request, *, scope: str, user_id: int) -> bool:
    """Whether this request's key already has a stored answer, so that `once` writes
    nothing: it replays the answer, or refuses another body or a deleted note with a 409.
    The answer read here is the one `once` uses, so one that expires in between is still
    replayed, never written again past a limit that let it through."""
    found = _identity(request, scope, user_id)
    if found is None:
        return False
    store = found[0]
    raw = get_redis().get(store)
    request._idempotency_read = (store, raw)  # type: ignore[attr-defined]
    return raw is not None


def once(
    request: Request,
    *,
    scope: str,
    user_id: int,
    run: Callable[[], Response],
    still_there: Callable[[Any], bool] = lambda body: True,
) -> Response:
    """`run()` once per user and key (see the module), or its first answer again while
    `still_there(first answer's body)` holds."""
    found = _identity(request, scope, user_id)
    if found is None:
        return run()
    store, fingerprint_hex, digest = found
    read = getattr(request, "_idempotency_read", None)  # what `stored` read, if it ran
    raw = read[1] if read is not None and read[0] == store else get_redis().get(store)
    if (earlier := _replay(raw, fingerprint_hex, still_there)) is not None:
        return earlier
    lock = RedisLock(
        keys.idempotency_lock(scope, user_id, digest),
        ttl=settings.IDEMPOTENCY_LOCK_TTL,
        watchdog=True,  # held for as long as the write runs, its retries included
    )
    if not lock.acquire(wait=settings.IDEMPOTENCY_WAIT):
        raise Conflict(
            gettext("A request with this Idempotency-Key is still running; retry shortly."),
            code=Code.IDEMPOTENCY_IN_PROGRESS,
        )
    try:
        # A duplicate that waited for the lock finds the first answer here.
        raw = get_redis().get(store)
        if (earlier := _replay(raw, fingerprint_hex, still_there)) is not None:
            return earlier
        response = run()
        if 200 <= response.status_code < 300:
            answer = {
                "fingerprint": fingerprint_hex,
                "status": response.status_code,
                "body": response.data,
            }
            get_redis().set(store, orjson.dumps(answer), ex=settings.IDEMPOTENCY_TTL)
        return response
    finally:
        lock.release()


def _identity(request: Request, scope: str, user_id: int) -> tuple[str, str, str] | None:
    """(the answer's key, the body's fingerprint, the key's digest), or None without a key."""
    key = idempotency_key(request)
    if key is None:
        return None
    digest = hashlib.sha256(key.encode()).hexdigest()
    # The stdlib's encoder: a body may hold integers past 64 bits (refused later, or not
    # at all where a field ignores them), which orjson cannot encode.
    body = json.dumps(request.data, sort_keys=True, ensure_ascii=False, default=str)
    fingerprint = hashlib.sha256(body.encode()).hexdigest()
    return keys.idempotency(scope, user_id, digest), fingerprint, digest


def _replay(
    raw: bytes | str | None, fingerprint: str, still_there: Callable[[Any], bool]
) -> Response | None:
    if raw is None:
        return None
    answer: dict[str, Any] = orjson.loads(raw)
    if answer["fingerprint"] != fingerprint:
        raise Conflict(
            gettext("This Idempotency-Key was used for a different request."),
            code=Code.IDEMPOTENCY_KEY_REUSED,
        )
    if not still_there(answer["body"]):
        raise Conflict(
            gettext("What this Idempotency-Key created has been deleted since; use a new key."),
            code=Code.IDEMPOTENCY_KEY_SPENT,
        )
    return Response(answer["body"], status=answer["status"], headers={REPLAYED: "true"})
