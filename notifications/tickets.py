"""Stream tickets (decision 387). EventSource cannot send an Authorization header, and a
login token in a URL would be written to every proxy's access log, so a signed-in client
trades its token, over an authenticated POST, for a ticket that opens one stream: random,
spent by the stream it opens, gone after TICKET_TTL seconds unspent. The ticket holds the
login token it stands for, so the stream goes on checking that token as long as it lasts."""

from __future__ import annotations

import secrets
from typing import cast

from accounts.tokens import TOKEN_PATTERN
from toolkit.redis.aio import bounded, get_async_redis
from toolkit.redis.client import get_redis

from . import keys

TICKET_TTL = 30  # seconds: a client opens its stream right after asking


def ticket_issue(token: str) -> str:
    """A new ticket for the caller's login token."""
    ticket = secrets.token_urlsafe(32)  # 43 characters, shaped like a login token
    get_redis().set(keys.stream_ticket(ticket), token, ex=TICKET_TTL)
    return ticket


async def ticket_redeem(ticket: str) -> str | None:
    """The login token a live ticket stands for, the ticket spent; None for anything else
    (never sent to Redis unless shaped like a ticket)."""
    if not TOKEN_PATTERN.fullmatch(ticket):
        return None
    async with bounded():
        token = cast("bytes | None", await get_async_redis().getdel(keys.stream_ticket(ticket)))
    return token.decode() if token is not None else None
