"""Login tokens: an unguessable string whose Redis key holds the public user data.

Reads use GETEX, which returns the data and pushes the TTL back to the full
AUTH_TOKEN_TTL in one command: one round trip per authenticated request.
A per-user set indexes the tokens so a disabled or deleted account can be
logged out everywhere at once.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Callable, Iterable
from typing import Any, cast

import redis
from django.conf import settings

from toolkit import logs
from toolkit.guesses import Guesses
from toolkit.redis.client import get_redis

from . import keys
from .models import User

# secrets.token_urlsafe(32): 32 random bytes (256 bits) -> 43 URL-safe characters.
_TOKEN_BYTES = 32
TOKEN_PATTERN = re.compile(r"[A-Za-z0-9_-]{43}")


def public_data(user: User) -> dict[str, Any]:
    """What a token carries about its user: enough to identify, nothing sensitive, and
    what `GET /api/users/me` answers (the phone masked), so that needs no query."""
    return {
        "id": user.id,
        "nick_name": user.nick_name,
        "icon": user.icon,
        "phone": mask_phone(user.phone),
    }


def mask_phone(phone: str | None) -> str | None:
    """138****0000: enough for the owner to recognise it, useless to anyone else."""
    return f"{phone[:3]}****{phone[-4:]}" if phone else None


def token_issue(user: User) -> str:
    """A new token for an interactive login; forgets the user's expired tokens first."""
    _prune_index(user.id)
    return tokens_issue([user])[0]


def tokens_issue(users: Iterable[User]) -> list[str]:
    """One new token per user, written in a single pipelined round trip."""
    pipe = get_redis().pipeline(transaction=False)
    issued = []
    for user in users:
        token = secrets.token_urlsafe(_TOKEN_BYTES)
        pipe.set(keys.login_token(token), json.dumps(public_data(user)), ex=settings.AUTH_TOKEN_TTL)
        pipe.sadd(keys.user_tokens(user.id), token)
        issued.append(token)
    pipe.execute()
    return issued


def bearer_token(header: str) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, if it is shaped like one.

    Anything else is never sent to Redis (think of a megabyte-long header).
    """
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not TOKEN_PATTERN.fullmatch(token):
        return None
    return token


def token_touch(token: str) -> dict[str, Any] | None:
    """The token's user data with its TTL refreshed, or None if unknown or expired."""
    return touched_data(get_redis().getex(keys.login_token(token), ex=settings.AUTH_TOKEN_TTL))


def queue_touch(pipe: redis.client.Pipeline, token: str) -> None:
    """Queue the refresh-and-read of `token` on a caller's pipeline (see `touched_data`)."""
    pipe.getex(keys.login_token(token), ex=settings.AUTH_TOKEN_TTL)


def touched_data(reply: bytes | str | None) -> dict[str, Any] | None:
    """The caller's token data from its refresh's reply; its user id goes on the log lines
    written for the rest of the request (toolkit/logs.py)."""
    if reply is None:
        return None
    data = json.loads(reply)
    logs.user_id.set(data["id"])
    return data


Reads = Callable[[Any, "int | None"], None]  # queue reads on a pipeline, for a viewer id

# Token -> its user's id, for tokens this process has seen: the reads of a signed-in
# request can then share the token's round trip (they are keyed by the user's id, which
# only the token's data would tell). The token is still read and refreshed with them,
# and its verdict decides: a revoked token answers as anonymous, its reads thrown away.
_seen: Guesses[int] = Guesses(50_000)


def touch_with(request: Any, reads: Reads | None = None) -> tuple[Any, list]:
    """The caller's token refreshed (every request, public ones too:
    docs/product/accounts.md#tokens) and the commands `reads(pipe, viewer_id)` queues
    (viewer_id None for an anonymous caller), in one round trip for a token this
    process has seen, two for a new one: (the token's data, or None for an anonymous or
    unknown caller; the replies to `reads`)."""
    token = bearer_token(request.META.get("HTTP_AUTHORIZATION", ""))
    if token is None:
        return None, _run(reads, None)
    guess = _seen.get(token)
    pipe = get_redis().pipeline(transaction=False)
    queue_touch(pipe, token)
    if reads is not None and guess is not None:
        reads(pipe, guess)
    replies = pipe.execute()
    viewer = touched_data(replies[0])
    return viewer, settle_reads(token, viewer, guess, reads, replies[1:])


def guessed_viewer(token: str) -> int | None:
    """The user id this process last found `token` carrying: a guess to queue a caller's
    reads with on the token's own round trip (a cache lookup's piggyback, say); the
    token's refresh then decides, through `settle_reads`."""
    return _seen.get(token)


def settle_reads(
    token: str,
    viewer: dict[str, Any] | None,
    guess: int | None,
    reads: Reads | None,
    queued: list,
) -> list:
    """The replies to `reads` for the viewer the token's refresh found: `queued` (those
    sent with the guess) when it was right, else read again in a round trip of their
    own, for the real viewer (None when the token is unknown); the guess is corrected."""
    if viewer is None:
        _seen.forget(token)
        return _run(reads, None)
    if guess != viewer["id"]:
        _seen.remember(token, viewer["id"])
        return _run(reads, viewer["id"])
    return queued


def run_reads(reads: Reads | None, viewer_id: int | None) -> list:
    """`reads` for `viewer_id` in a round trip of their own (none if they queue nothing)."""
    return _run(reads, viewer_id)


def _run(reads: Reads | None, viewer_id: int | None) -> list:
    if reads is None:
        return []
    pipe = get_redis().pipeline(transaction=False)
    reads(pipe, viewer_id)
    return pipe.execute() if len(pipe) else []


def tokens_refresh_user(user_id: int) -> None:
    """Rewrite the data every live token of the user carries from the committed row (after
    a change to what a token holds), keeping each one's TTL; tokens that expired meanwhile
    stay gone. The row is read here, not passed in: of two saves whose callbacks run out
    of order, the last one to run still writes the latest data."""
    client = get_redis()
    members = cast("set[bytes]", client.smembers(keys.user_tokens(user_id)))  # not decoded
    if not members:
        return
    user = User.objects.filter(pk=user_id, is_active=True).first()
    if user is None:
        return  # a disabled or deleted user's tokens are revoked, not refreshed
    data = json.dumps(public_data(user))
    pipe = client.pipeline(transaction=False)
    for token in members:
        pipe.set(keys.login_token(token.decode()), data, keepttl=True, xx=True)
    pipe.execute()


def token_revoke(token: str, user_id: int) -> None:
    pipe = get_redis().pipeline(transaction=False)
    pipe.delete(keys.login_token(token))
    pipe.srem(keys.user_tokens(user_id), token)
    pipe.execute()


def tokens_revoke_users(user_ids: Iterable[int]) -> int:
    """Log users out everywhere in two round trips; returns how many live tokens were revoked."""
    user_ids = list(dict.fromkeys(user_ids))
    if not user_ids:
        return 0
    client = get_redis()
    read = client.pipeline(transaction=False)
    for user_id in user_ids:
        read.smembers(keys.user_tokens(user_id))
    listed = {
        user_id: members
        for user_id, members in zip(user_ids, read.execute(), strict=True)
        if members
    }
    if not listed:
        return 0
    pipe = client.pipeline(transaction=False)
    for members in listed.values():
        for token in members:
            pipe.delete(keys.login_token(token.decode()))
    for user_id, members in listed.items():
        # Remove only what was read: a login racing with this keeps its (listed) token.
        pipe.srem(keys.user_tokens(user_id), *members)
    return sum(pipe.execute()[: -len(listed)])


def _prune_index(user_id: int) -> None:
    client = get_redis()
    index = keys.user_tokens(user_id)
    members = [m.decode() for m in cast("set[bytes]", client.smembers(index))]
    if not members:
        return
    pipe = client.pipeline(transaction=False)
    for token in members:
        pipe.exists(keys.login_token(token))
    dead = [token for token, alive in zip(members, pipe.execute(), strict=True) if not alive]
    if dead:
        client.srem(index, *dead)
