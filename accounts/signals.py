"""What must follow a user however they are deleted or disabled: admin, `user.delete()`,
`user.save()` in a shell, a cascade. (A queryset `update()` sends no signal: call
`services.user_revoke_sessions` after one.)"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.dispatch import Signal

from . import services, tokens
from .caches import user_evict
from .models import User

# Sent after a change to a user's public profile (nick name, icon) commits, however it was
# saved. Argument: user_id. blogs.receivers drops the cached blog details that show it.
profile_changed = Signal()
PUBLIC_FIELDS = {"nick_name", "icon"}
TOKEN_FIELDS = {*PUBLIC_FIELDS, "phone"}  # what live tokens carry (tokens.public_data)


def user_deleted(sender: type[User], instance: User, using: str, **kwargs: Any) -> None:
    """Revoke the user's tokens once the deletion commits, not when they idle out.

    Robust: the deletion has committed by then, so a Redis error is logged rather than
    reported as a failed delete.
    """
    user_id = instance.pk  # the collector clears it after the signals
    transaction.on_commit(
        lambda: services.user_revoke_sessions(user_id=user_id), using=using, robust=True
    )
    transaction.on_commit(lambda: user_evict(user_id), using=using, robust=True)


def user_saved(
    sender: type[User], instance: User, created: bool, using: str, **kwargs: Any
) -> None:
    """A disabled account stops working once the change commits (robust, as above), and
    a changed public profile is announced."""
    update_fields = kwargs.get("update_fields")
    changed = TOKEN_FIELDS if update_fields is None else TOKEN_FIELDS & set(update_fields)
    if not created and changed:
        # Every device's token shows the new name at once, and `me`, served from the
        # token, too; however the change was saved (API, admin, shell).
        saved_id = instance.pk
        transaction.on_commit(
            lambda: tokens.tokens_refresh_user(saved_id), using=using, robust=True
        )
    activity = update_fields is None or "is_active" in update_fields
    if not created and (changed or activity):  # re-enabled too: its "no such user" goes
        user_id_ = instance.pk
        transaction.on_commit(lambda: user_evict(user_id_), using=using, robust=True)
    if not created and PUBLIC_FIELDS & changed:
        changed_id = instance.pk
        transaction.on_commit(
            lambda: profile_changed.send(sender=User, user_id=changed_id), using=using, robust=True
        )
    if created or instance.is_active:
        return
    user_id = instance.pk
    transaction.on_commit(
        lambda: services.user_revoke_sessions(user_id=user_id), using=using, robust=True
    )
