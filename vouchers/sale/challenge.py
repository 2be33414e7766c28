"""A short challenge before a sale's grab (decision 500): an arithmetic question drawn as
a picture, fetched before the sale opens, so a script holding many accounts must read a
picture per account and the crowd's clicks spread out.

Its answer is kept in the sale's Redis as an HMAC (SECRET_KEY) of the voucher, the
challenge id and the answer, under a key bound to the user and the sale, in the slot of
the user's home bucket: the grab computes the same HMAC before its one script call and
seckill.lua compares and deletes it there (single-use, one answer, no extra round trip).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import random
import secrets
from dataclasses import dataclass

from django.conf import settings
from django.utils.translation import gettext

from pictures.challenge import question_png
from toolkit import clock
from toolkit.errors import Conflict, NotFound

from .. import keys
from ..errors import Code
from ..metrics import challenge_counter
from ..sale_orders import sale_redis
from . import buckets
from .window import sale_window

_rng = random.SystemRandom()


@dataclass(frozen=True, slots=True)
class Challenge:
    id: str
    question: str  # what the picture shows, e.g. "7 + 5 = ?" (never sent to the client)
    answer: int
    expires_in: int  # seconds

    def data_url(self) -> str:
        """The question as a PNG data URL: the client's <img> needs no second request."""
        png = question_png(self.question)
        return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def challenge_digest(voucher_id: int, challenge_id: str, answer: str) -> str:
    """What the sale's Redis holds for a challenge and what a grab sends to be compared:
    a reader of Redis learns nothing of the answer from it."""
    message = f"{voucher_id}:{challenge_id}:{answer.strip()}".encode()
    return hmac.new(settings.SECRET_KEY.encode(), message, hashlib.sha256).hexdigest()


def challenge_key(shards: tuple[int, ...], voucher_id: int, user_id: int) -> str:
    """The user's open challenge of a sale, in the slot the seckill script runs on."""
    return keys.seckill_challenge(buckets.home_shard(shards, user_id), voucher_id, user_id)


def challenge_issue(*, user_id: int, voucher_id: int) -> Challenge:
    """A new challenge for `user_id` in the sale, replacing any open one (so one user holds
    one at a time). 404 for no such sale; 409 `not_a_sale`, `ended`, `challenge_off`."""
    window = sale_window(voucher_id)
    if window is None:
        raise NotFound(gettext("No such flash sale."), code=Code.VOUCHER_NOT_FOUND)
    if not window.seckill:
        raise Conflict(
            gettext("This voucher is not on flash sale: claim it."), code=Code.NOT_A_SALE
        )
    if window.void or clock.now_seconds() >= window.end:
        raise Conflict(gettext("The sale has ended."), code=Code.ENDED)
    if not window.challenge:
        raise Conflict(gettext("This sale needs no challenge."), code=Code.CHALLENGE_OFF)
    challenge = new_challenge()
    sale_redis().set(
        challenge_key(window.shards, voucher_id, user_id),
        challenge_digest(voucher_id, challenge.id, str(challenge.answer)),
        ex=challenge.expires_in,
    )
    challenge_counter(voucher_id, "issued").inc()
    return challenge


def new_challenge() -> Challenge:
    """A question a person answers in a few seconds: a sum, a difference (never below
    zero) or a small product."""
    kind = _rng.choice("+-x")
    if kind == "+":
        a, b = _rng.randint(1, 20), _rng.randint(1, 20)
        answer = a + b
    elif kind == "-":
        a, b = _rng.randint(5, 30), _rng.randint(1, 5)
        a, answer = a + b, a
    else:
        a, b = _rng.randint(2, 9), _rng.randint(2, 9)
        answer = a * b
    return Challenge(
        id=secrets.token_urlsafe(12),
        question=f"{a} {kind} {b} = ?",  # "x": the bundled font has no multiplication sign
        answer=answer,
        expires_in=settings.SECKILL_CHALLENGE_TTL,
    )
