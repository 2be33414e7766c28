"""Account reads."""

from __future__ import annotations

from typing import Any

import orjson
from django.utils.translation import gettext

from toolkit.errors import NotAuthenticated, NotFound

from .caches import user_cache
from .errors import Code
from .models import User, UserInfo


def user_get(*, user_id: int) -> User:
    user = User.objects.filter(pk=user_id, is_active=True).first()
    if user is None:
        raise NotFound(gettext("No such user."), code=Code.USER_NOT_FOUND)
    return user


def public_user_document(*, user_id: int) -> dict[str, Any]:
    """An active user as others see them, from the user cache (404 as `user_get`)."""
    from .serializers import PublicUserSerializer

    def load() -> dict[str, Any] | None:
        user = User.objects.filter(pk=user_id, is_active=True).first()
        return PublicUserSerializer(user).data if user else None

    raw = user_cache().get(user_id, load)
    if raw is None:
        raise NotFound(gettext("No such user."), code=Code.USER_NOT_FOUND)
    return orjson.loads(raw)


def public_user_documents(user_ids: list[int]) -> dict[int, dict[str, Any]]:
    """Active users as others see them, from the user cache (the process's near copies
    first), one round trip for those it lacks; unknown or disabled ones left out."""
    from .serializers import PublicUserSerializer

    def load(missing: list[int]) -> dict[int, dict[str, Any]]:
        users = User.objects.filter(pk__in=missing, is_active=True)
        return {user.id: PublicUserSerializer(user).data for user in users}

    raws = user_cache().lookup_many(user_ids, load)
    return {i: orjson.loads(raw) for i in user_ids if (raw := raws.get(i)) is not None}


def me_get(*, user_id: int) -> User:
    """The caller's own account; a token outliving its (deleted or disabled) user is a 401."""
    try:
        return user_get(user_id=user_id)
    except NotFound:
        raise NotAuthenticated() from None


def user_info_get(*, user_id: int) -> UserInfo:
    """The profile, or an unsaved all-defaults one for accounts made outside the login flow."""
    user = user_get(user_id=user_id)
    return UserInfo.objects.filter(user=user).first() or UserInfo(user=user)


def is_site_staff(*, user_id: int) -> bool:
    """Staff of the whole site (operators), read from the database so revoking is immediate."""
    return User.objects.filter(pk=user_id, is_staff=True, is_active=True).exists()
