"""Account writes: SMS codes, login/logout, user creation and profile edits."""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import string
from collections.abc import Iterable, Sequence

from django.conf import settings
from django.contrib.auth.hashers import make_password
from django.db import IntegrityError, transaction
from django.utils.translation import gettext

from search import tasks as search_tasks
from toolkit import clock
from toolkit.errors import (
    Conflict,
    Forbidden,
    InvalidInput,
    NotAuthenticated,
    RateLimited,
    ServiceUnavailable,
)
from toolkit.redis.client import get_redis
from toolkit.redis.ratelimit import SlidingWindowLimiter
from toolkit.redis.scripts import lua
from toolkit.transactions import retry_on_lock_conflict

from . import keys, tokens
from .errors import Code
from .models import User, UserInfo
from .sms import send_sms

log = logging.getLogger(__name__)

_VERIFY_CODE = lua(__file__, "verify_code.lua")
_NICK_ALPHABET = string.ascii_lowercase + string.digits
_CODE_ACCEPTED = 1  # verify_code.lua's answers: 0 wrong, -1 no live code


def _code_digest(phone: str, code: str) -> str:
    # Redis keeps only a keyed digest: a leaked dump reveals no live code, and
    # comparing digests in Lua is safe from timing attacks on the code itself.
    message = f"{phone}:{code}".encode()
    return hmac.new(settings.SECRET_KEY.encode(), message, hashlib.sha256).hexdigest()


def _phone_limiter() -> SlidingWindowLimiter:
    return SlidingWindowLimiter("sms_phone", settings.SMS_PHONE_LIMITS)


def auth_code_send(*, phone: str) -> None:
    """Issue a fresh 6-digit code for `phone` (replacing any earlier one) and text it."""
    limiter = _phone_limiter()
    decision = limiter.hit(phone)
    if not decision.allowed:
        raise RateLimited(decision.retry_after, gettext("Too many codes requested for this phone."))
    code = f"{secrets.randbelow(10**6):06d}"
    key = keys.login_code(phone)
    pipe = get_redis().pipeline(transaction=True)
    pipe.delete(key)
    pipe.hset(key, mapping={"digest": _code_digest(phone, code), "attempts": 0})
    pipe.expire(key, settings.AUTH_CODE_TTL)
    pipe.execute()
    # In the requester's language; translations keep the code apart from the words around
    # it (a space or punctuation), so phones can offer to fill it in.
    text = gettext("Your Dianping login code is %(code)s. It expires in %(minutes)s minutes.") % {
        "code": code,
        "minutes": settings.AUTH_CODE_TTL // 60,
    }
    try:
        send_sms(phone, text)
    except Exception as exc:
        get_redis().delete(key)  # a code nobody received must not stay guessable
        limiter.refund(phone, decision)  # nor count against the phone's quota
        log.exception("sms delivery to %s failed", phone)
        raise ServiceUnavailable(gettext("The text message could not be sent; try again.")) from exc


def auth_login(*, phone: str, code: str) -> tuple[str, User]:
    """Consume the code and return (token, user); unknown phones get a new account."""
    verdict = _VERIFY_CODE(
        [keys.login_code(phone)], [_code_digest(phone, code), settings.AUTH_CODE_MAX_ATTEMPTS]
    )
    if verdict != _CODE_ACCEPTED:
        # One answer whether the code was wrong or the phone has no live code (none sent,
        # expired, used or burnt): telling them apart told anyone which phones had a live
        # code (decision 283).
        raise InvalidInput(gettext("The code is wrong or no longer valid."), code=Code.INVALID_CODE)
    user = user_get_or_create_by_phone(phone=phone)
    if not user.is_active:
        raise Forbidden(gettext("This account is disabled."), code=Code.ACCOUNT_DISABLED)
    return tokens.token_issue(user), user


def auth_logout(*, token: str, user_id: int) -> None:
    tokens.token_revoke(token, user_id)


def user_revoke_sessions(*, user_id: int) -> int:
    """Log the user out on every device (e.g. after disabling or deleting the account)."""
    return users_revoke_sessions(user_ids=[user_id])


def users_revoke_sessions(*, user_ids: Iterable[int]) -> int:
    """Log these users out on every device at once; returns how many live tokens were revoked."""
    return tokens.tokens_revoke_users(user_ids)


def _random_nick_name() -> str:
    return "user_" + "".join(secrets.choice(_NICK_ALPHABET) for _ in range(10))


def _new_user(phone: str) -> User:
    return User(
        username=phone, phone=phone, nick_name=_random_nick_name(), password=make_password(None)
    )


def user_get_or_create_by_phone(*, phone: str) -> User:
    user = User.objects.filter(phone=phone).first()
    if user is not None:
        return user
    try:
        with transaction.atomic():
            user = _new_user(phone)
            user.save()
            UserInfo.objects.create(user=user)
            search_tasks.refresh_on_commit("users", user.pk)
            return user
    except IntegrityError:
        # Another request created the same phone between our read and insert,
        # or an operator gave some other account this phone as its username.
        user = User.objects.filter(phone=phone).first()
        if user is None:
            raise Conflict(
                gettext("This phone number clashes with an existing account; contact support."),
                code=Code.ACCOUNT_CONFLICT,
            ) from None
        return user


def users_ensure(
    *, phones: Sequence[str], staff: bool = False, batch_size: int = 1000
) -> list[User]:
    """Users for `phones` in that order, creating the missing ones in bulk (ops and load tests)."""
    by_phone: dict[str | None, User] = {}
    for start in range(0, len(phones), batch_size):
        chunk = phones[start : start + batch_size]
        with transaction.atomic():
            existing = set(User.objects.filter(phone__in=chunk).values_list("phone", flat=True))
            fresh = [_new_user(phone) for phone in chunk if phone not in existing]
            User.objects.bulk_create(fresh, ignore_conflicts=True)
            if staff:
                User.objects.filter(phone__in=chunk).update(is_staff=True)
            users = list(User.objects.filter(phone__in=chunk))
            UserInfo.objects.bulk_create(
                [UserInfo(user=user) for user in users], ignore_conflicts=True
            )
        by_phone.update((user.phone, user) for user in users)
    return [by_phone[phone] for phone in phones]


@retry_on_lock_conflict
def user_update_profile(
    *, user_id: int, nick_name: str | None = None, icon: str | None = None
) -> User:
    """Change the public profile; every live token of the user carries the new data after
    commit (accounts.signals)."""
    with transaction.atomic():
        user = User.objects.select_for_update().filter(pk=user_id, is_active=True).first()
        if user is None:
            raise NotAuthenticated()
        if nick_name is not None:
            user.nick_name = nick_name
        if icon is not None:
            user.icon = icon
        user.save(update_fields=["nick_name", "icon", "updated_at"])
        if nick_name is not None:
            search_tasks.refresh_on_commit("users", user_id)
    return user


PROFILE_FIELDS = ("city", "introduce", "gender", "birthday")


@retry_on_lock_conflict
def user_info_update(*, user_id: int, **changes: object) -> UserInfo:
    """Change the owner's profile (city, introduce, gender, birthday). A conditional
    UPDATE of those columns alone: the follow counters in the same row are moved by
    follows.services under its row lock, and a read-modify-save here could put back a
    count it read before. No cache holds the profile (the public-user cache and the
    tokens carry the nick name and picture only), so nothing is evicted."""
    fields = {name: changes[name] for name in PROFILE_FIELDS if name in changes}
    # Accounts made outside the login flow may have no row yet: made first, in a
    # statement of its own, as follows.services does for the same reason (InnoDB's shared
    # lock of a duplicate-key check inside a transaction).
    UserInfo.objects.bulk_create([UserInfo(user_id=user_id)], ignore_conflicts=True)
    if fields:
        UserInfo.objects.filter(user_id=user_id).update(**fields, updated_at=clock.now())
    if "introduce" in fields:  # people are found by it (accounts/search.py)
        search_tasks.refresh_on_commit("users", user_id)
    return UserInfo.objects.get(user_id=user_id)
