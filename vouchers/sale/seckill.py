"""The flash sale's hot path: decide in one Redis script, persist later (see drain.py)."""

from __future__ import annotations

import functools
import time
from enum import IntEnum
from typing import NamedTuple

from django.conf import settings
from django.utils.translation import gettext, gettext_lazy

from accounts import keys as accounts_keys
from accounts import tokens
from toolkit import clock, runtime
from toolkit.errors import (
    Conflict,
    DomainError,
    Forbidden,
    NotAuthenticated,
    NotFound,
    RateLimited,
    ServiceUnavailable,
)
from toolkit.redis import ids
from toolkit.redis.scripts import FUNNEL_LIB, lua

from .. import keys
from ..errors import Code
from ..metrics import OTHER, challenge_counter, verdict_counter
from ..models import Voucher
from ..sale_orders import SALE_REDIS, shard_bits
from . import admission, buckets, durability, shard, stock
from .challenge import challenge_digest
from .shard import LIVE_LIB
from .window import SaleWindow, sale_window

_SECKILL = lua(__file__, "seckill.lua", prelude=(FUNNEL_LIB, LIVE_LIB), alias=SALE_REDIS)


# The script's contract, named once here and once at the top of seckill.lua (a test
# checks that they agree): its KEYS and ARGV in order, and the verdicts it returns.
class SaleKeys(NamedTuple):
    stock_key: str
    buyers_key: str
    orders_key: str
    pending_key: str
    counter_key: str
    funnel_key: str  # token mode: the funnel keys' prefix, completed with the token's user
    live_key: str
    challenge_key: str  # token mode: the prefix, completed with the token's user


class SaleArgs(NamedTuple):
    user: int | str  # "" in token mode: the script reads the user from the token
    voucher: int
    now: int
    begin_at: int
    end_at: int
    shard: int
    shard_bits: int
    id_epoch: int
    counter_ttl: int
    funnel_capacity: int
    funnel_leak_per_ms: str
    now_ms: int
    charge_funnel: str
    token_ttl: int
    challenge_digest: str  # "" when no challenge is checked (challenge.py)


class Verdict(IntEnum):
    OK = 0
    NOT_STARTED = -1
    ENDED = -2
    NOT_LOADED = -3
    DUPLICATE = -4
    SOLD_OUT = -5
    OUT_OF_IDS = -6
    THROTTLED = -7
    UNKNOWN_TOKEN = -8
    UNVERIFIED = -9
    CHALLENGE_EXPIRED = -10
    CHALLENGE_WRONG = -11


# The verdicts that refuse this buyer now, and the 409 each answers.
_CONFLICTS = {
    Verdict.DUPLICATE: (
        gettext_lazy("You already have an order for this voucher."),
        Code.DUPLICATE_ORDER,
    ),
    Verdict.NOT_STARTED: (gettext_lazy("The sale has not started yet."), Code.NOT_STARTED),
    Verdict.ENDED: (gettext_lazy("The sale has ended."), Code.ENDED),
}

# The challenge's refusals (403): nothing was sold, and the challenge is used up.
_CHALLENGE_REFUSALS = {
    Verdict.CHALLENGE_EXPIRED: (
        gettext_lazy("Your challenge has expired or was used: get a new one."),
        Code.CHALLENGE_EXPIRED,
    ),
    Verdict.CHALLENGE_WRONG: (
        gettext_lazy("Wrong answer to the challenge: try a new one."),
        Code.CHALLENGE_WRONG,
    ),
}
# The verdicts the script returns before it looks at the challenge.
_BEFORE_CHALLENGE = {
    Verdict.UNKNOWN_TOKEN,
    Verdict.UNVERIFIED,
    Verdict.THROTTLED,
    Verdict.NOT_STARTED,
    Verdict.ENDED,
}

# Each verdict's label in dianping_seckill_requests_total (vouchers/metrics.py).
_LABELS: dict[int, str] = {v: "accepted" if v == Verdict.OK else v.name.lower() for v in Verdict}

# voucher id -> monotonic time until which it is known to be sold out (this process only;
# the short TTL is what lets a unit given back by a cancellation be sold again)
_sold_out_until: dict[int, float] = {}
# Held in this process only: forgotten between tests (a voucher id a later test reuses is
# not sold out), and by a forked child, as the other in-process copies are.
runtime.register(
    runtime.Part(
        "sold-out-flags",
        reset=_sold_out_until.clear,
        stop=lambda: None,
        after_fork=_sold_out_until.clear,
    )
)


# A grab's answer to the sale's challenge: (challenge id, answer), as the client sent them.
Answer = tuple[str, str]


def voucher_seckill(*, user_id: int, voucher_id: int, challenge: Answer | None = None) -> int:
    """Buy one unit for `user_id`; returns the new order id. Raises the sale's verdicts."""
    window = _open_window(voucher_id)
    digest = _challenge_digest(window, voucher_id, challenge)
    admission.seckill_admit(voucher_id=voucher_id)
    return _buy(voucher_id, window, user_id, digest)


def _challenge_digest(window: SaleWindow, voucher_id: int, challenge: Answer | None) -> str:
    """What the script compares with the user's open challenge ("" for a sale without
    one); 403 `challenge_required` when the sale needs one and the grab sent none."""
    if not window.challenge:
        return ""
    if challenge is None:
        challenge_counter(voucher_id, "missing").inc()
        verdict_counter(voucher_id, "challenge_missing").inc()
        raise Forbidden(
            gettext("This sale needs the answer to its challenge."),
            code=Code.CHALLENGE_REQUIRED,
        )
    return challenge_digest(voucher_id, *challenge)


def _buy(voucher_id: int, window: SaleWindow, user_id: int, digest: str = "") -> int:
    """The sale by user id, in the buyer's home bucket; an empty home bucket of a sale in
    several is refilled from the others (buckets.py) before "sold out" is answered. The
    challenge is checked (and used) by the first call only."""
    home = buckets.home_shard(window.shards, user_id)
    verdict = _run(voucher_id, window, home, user_id=user_id, challenge=digest)
    everywhere = True  # whether "sold out" was seen in every bucket
    for _ in window.shards[1:]:  # one refill per other bucket at most: the bound
        if verdict[0] != Verdict.SOLD_OUT:
            break
        refilled = buckets.refill(voucher_id, window.shards, home)
        everywhere = refilled is buckets.Refill.EMPTY
        if refilled is not buckets.Refill.MOVED:
            # EMPTY: sold out. PAUSED: what is left waits for a bucket's heal, as it does.
            verdict = verdict if everywhere else [Verdict.UNVERIFIED]
            break
        verdict = _run(voucher_id, window, home, user_id=user_id, charge_funnel=False)
    return _decide(verdict, voucher_id, window, home, everywhere=everywhere)


def voucher_seckill_by_token(
    *, token: str, voucher_id: int, challenge: Answer | None = None
) -> int:
    """`voucher_seckill` for the caller holding a login token, in one round trip: the
    script refreshes the token and reads its user (NotAuthenticated if it is unknown).
    On a Redis Cluster the token lives in another slot than the sale, and with
    SECKILL_REDIS_URL on another Redis, so there it takes two: the token's refresh, then
    the sale by user id."""
    try:
        window = _open_window(voucher_id)
        digest = _challenge_digest(window, voucher_id, challenge)
    except DomainError:
        _authenticate(token)  # the refresh every request owes, and 401 before 404/409
        raise
    # Past the answers that need no sale script, before any round trip: a refused grab
    # touches no Redis, its token's refresh included (decision 301).
    admission.seckill_admit(voucher_id=voucher_id)
    if settings.REDIS_CLUSTER or shard.sale_has_own_redis() or len(window.shards) > 1:
        return _buy(voucher_id, window, _authenticate(token), digest)
    (home,) = window.shards
    verdict = _run(voucher_id, window, home, token=token, challenge=digest)
    return _decide(verdict, voucher_id, window, home)


def _authenticate(token: str) -> int:
    """Refresh the token; its user's id (NotAuthenticated for an unknown token)."""
    data = tokens.token_touch(token)
    if data is None:
        raise NotAuthenticated()
    return int(data["id"])


def _open_window(voucher_id: int) -> SaleWindow:
    """The sale's window, or the verdicts that need no Redis: unknown, void, sold out."""
    window = sale_window(voucher_id)
    if window is None:
        verdict_counter(OTHER, "not_found").inc()  # any id a client sends: no label of its own
        raise NotFound(gettext("No such flash sale."), code=Code.VOUCHER_NOT_FOUND)
    if not window.seckill:
        verdict_counter(OTHER, "not_a_sale").inc()
        raise Conflict(
            gettext("This voucher is not on flash sale: claim it."), code=Code.NOT_A_SALE
        )
    if window.void:
        verdict_counter(voucher_id, "void").inc()
        raise Conflict(gettext("This sale was cancelled."), code=Code.ENDED)
    if _sold_out_until.get(voucher_id, 0) > time.monotonic():
        verdict_counter(voucher_id, "sold_out").inc()
        raise Conflict(gettext("Sold out."), code=Code.SOLD_OUT)
    return window


def _decide(
    verdict: list[int], voucher_id: int, window: SaleWindow, home: int, *, everywhere: bool = True
) -> int:
    """Return the order id of an accepted grab, or raise the refusal. Each request's
    verdict is counted here once (a retry after loading the stock counts only its own).
    This process remembers "sold out" only when every bucket said so (`everywhere`)."""
    if verdict[0] == Verdict.NOT_LOADED:
        # An active sale whose stock was never preheated: load it (set-if-absent), retry.
        stock.stock_load(Voucher.objects.filter(pk=voucher_id))
        verdict = _run(voucher_id, window, home, user_id=verdict[1], charge_funnel=False)
    code = verdict[0]
    verdict_counter(voucher_id, _LABELS.get(code, "unknown")).inc()
    if code == Verdict.UNKNOWN_TOKEN:
        raise NotAuthenticated()
    if code == Verdict.OK:
        return ids.compose(ids.ID_EPOCH + int(verdict[1]), int(verdict[2]))
    if code == Verdict.SOLD_OUT:
        if everywhere:
            _sold_out_until[voucher_id] = time.monotonic() + settings.SECKILL_SOLD_OUT_FLAG_TTL
        raise Conflict(gettext("Sold out."), code=Code.SOLD_OUT)
    if code == Verdict.THROTTLED:
        raise RateLimited(verdict[1] / 1000, gettext("Too many attempts; slow down."))
    if code in _CHALLENGE_REFUSALS:
        message, error_code = _CHALLENGE_REFUSALS[Verdict(code)]
        raise Forbidden(message, code=error_code)
    if code in _CONFLICTS:
        message, error_code = _CONFLICTS[Verdict(code)]
        raise Conflict(message, code=error_code)
    if code == Verdict.UNVERIFIED:
        raise ServiceUnavailable(
            gettext("The sale is being checked after a restart; try again in a moment.")
        )
    # NOT_LOADED again (the stock could not be loaded) or OUT_OF_IDS: both pass soon.
    raise ServiceUnavailable(gettext("The sale is not ready; try again shortly."))


def _run(
    voucher_id: int,
    window: SaleWindow,
    shard_no: int,
    *,
    user_id: int | None = None,
    token: str | None = None,
    charge_funnel: bool = True,
    challenge: str = "",
) -> list[int]:
    """One EVALSHA of seckill.lua on one bucket, for a known user or (token mode) a
    token's user; `challenge` the HMAC of the grab's answer when the sale checks one."""
    now_ms = clock.now_ms()
    now = now_ms // 1000
    stock_key, buyers_key, orders_key, pending_key = _sale_keys(shard_no, voucher_id)
    script_keys: list[str] = list(
        SaleKeys(
            stock_key=stock_key,
            buyers_key=buyers_key,
            orders_key=orders_key,
            pending_key=pending_key,
            counter_key=keys.seckill_id_counter(shard_no, ids.day_of(now)),
            funnel_key=(
                keys.seckill_funnel_prefix(shard_no)
                if token
                else keys.seckill_funnel(shard_no, user_id or 0)
            ),
            live_key=keys.seckill_live(shard_no),
            challenge_key=(
                keys.seckill_challenge_prefix(shard_no, voucher_id)
                if token
                else keys.seckill_challenge(shard_no, voucher_id, user_id or 0)
            ),
        )
    )
    if token:
        script_keys.append(accounts_keys.login_token(token))  # the optional last key: token_key
    args = SaleArgs(
        user="" if token else (user_id or 0),
        voucher=voucher_id,
        now=now,
        begin_at=window.begin,
        end_at=window.end,
        shard=shard_no,
        shard_bits=shard_bits(),
        id_epoch=ids.ID_EPOCH,
        counter_ttl=ids.COUNTER_TTL,
        funnel_capacity=settings.SECKILL_FUNNEL_CAPACITY,
        funnel_leak_per_ms=repr(settings.SECKILL_FUNNEL_PER_SECOND / 1000),
        now_ms=now_ms,
        charge_funnel="1" if charge_funnel else "0",
        token_ttl=settings.AUTH_TOKEN_TTL,
        challenge_digest=challenge,
    )
    if durability.mode() != durability.REPLICA:
        verdict = [int(part) for part in _SECKILL.run_direct(script_keys, args)]
        if challenge:
            _count_challenge(voucher_id, verdict[0])
        return verdict
    reply, replicas = _SECKILL.run_then_wait(
        script_keys, args, replicas=1, timeout_ms=settings.SECKILL_REPLICA_WAIT_MS
    )
    verdict = [int(part) for part in reply]
    if challenge:
        _count_challenge(voucher_id, verdict[0])
    if verdict[0] == Verdict.OK and replicas < 1:
        # Accepted, but only on a master that may yet die: never a 200 we cannot keep.
        verdict_counter(voucher_id, "unconfirmed").inc()
        raise ServiceUnavailable(
            gettext("Your order could not be confirmed yet: check my vouchers before trying again.")
        )
    return verdict


def _count_challenge(voucher_id: int, code: int) -> None:
    """A checked challenge's outcome (one the script did not reach is not counted)."""
    if code == Verdict.CHALLENGE_EXPIRED:
        challenge_counter(voucher_id, "expired").inc()
    elif code == Verdict.CHALLENGE_WRONG:
        challenge_counter(voucher_id, "wrong").inc()
    elif code not in _BEFORE_CHALLENGE:
        challenge_counter(voucher_id, "passed").inc()


@functools.lru_cache(maxsize=4096)
def _sale_keys(shard_no: int, voucher_id: int) -> tuple[str, ...]:
    """A bucket's keys that never change: stock, buyers, orders, pending (SECKILL_SHARDS
    changes only with every process stopped: decision 78)."""
    return (
        keys.seckill_stock(shard_no, voucher_id),
        keys.seckill_buyers(shard_no, voucher_id),
        keys.seckill_orders(shard_no),
        keys.seckill_pending(shard_no),
    )
