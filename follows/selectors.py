"""Follow reads: a user's followers and followees, newest follow first, scrolled."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db.models import QuerySet

from accounts.selectors import public_user_document, user_get
from toolkit.api.scroll import SCROLL_PAGE
from toolkit.prepared import PreparedRead
from toolkit.redis.client import get_redis

from . import keys
from .models import Follow


def follow_list(
    *, user_id: int, direction: str, last_id: int | None
) -> tuple[list[Follow], int | None]:
    """`direction` "followers" (who follows the user) or "following" (whom the user
    follows): 10 follows, newest first, with the other side's user, and the next page's
    `last_id` (None at the end). Scrolled by the follow's id, not an offset: follows made
    or undone meanwhile never shift a page. Unknown or disabled user: 404. Disabled users
    are left out of the list (their pages are 404 too)."""
    user_get(user_id=user_id)
    if direction == "followers":
        rows = Follow.objects.filter(followed_id=user_id, user__is_active=True)
        rows = rows.select_related("user")  # the (followed, -id) index
    else:
        rows = Follow.objects.filter(user_id=user_id, followed__is_active=True)
        rows = rows.select_related("followed")  # the (user, -id) index
    if last_id is not None:
        rows = rows.filter(id__lt=last_id)
    page = list(rows.order_by("-id")[:SCROLL_PAGE])
    return page, (page[-1].id if len(page) == SCROLL_PAGE else None)


def _follow_values(user_id: int, direction: str, last_id: int | None = None) -> QuerySet:
    if direction == "followers":
        rows = Follow.objects.filter(followed_id=user_id, user__is_active=True)
        other = "user"
    else:
        rows = Follow.objects.filter(user_id=user_id, followed__is_active=True)
        other = "followed"
    if last_id is not None:
        rows = rows.filter(id__lt=last_id)
    columns = ("id", "created_at", f"{other}_id", f"{other}__nick_name", f"{other}__icon")
    return rows.order_by("-id").values_list(*columns)[:SCROLL_PAGE]


def _page_read(direction: str, later: bool) -> PreparedRead:
    def first(user_id: int) -> QuerySet:
        return _follow_values(user_id, direction)

    def after(user_id: int, last_id: int) -> QuerySet:
        return _follow_values(user_id, direction, last_id)

    return PreparedRead(after if later else first)


_PAGES = {
    (direction, later): _page_read(direction, later)
    for direction in ("followers", "following")
    for later in (False, True)
}


def follow_rows(
    *, user_id: int, direction: str, last_id: int | None
) -> tuple[list[tuple[Any, ...]], int | None]:
    """`follow_list` as tuples (follow id, followed at, the other user's id, nick name and
    icon), in one query compiled once (decision 305); the listed user checked in the
    user cache (decision 304). Unknown or disabled user: 404."""
    public_user_document(user_id=user_id)
    if last_id is None:
        rows = _PAGES[direction, False].rows(user_id=user_id)
    else:
        rows = _PAGES[direction, True].rows(user_id=user_id, last_id=last_id)
    return rows, (rows[-1][0] if len(rows) == SCROLL_PAGE else None)


def queue_following_states(pipe: Any, user_id: int | None, target_ids: Sequence[int]) -> None:
    """Queue `following_states`' one SMISMEMBER on a pipeline (nothing for an anonymous
    caller or an empty list); `read_following_states` reads its reply."""
    if user_id is not None and target_ids:
        pipe.smismember(keys.following(user_id), list(target_ids))


def read_following_states(
    replies: Sequence[Any], user_id: int | None, target_ids: Sequence[int]
) -> dict[int, bool]:
    if user_id is None or not target_ids:
        return dict.fromkeys(target_ids, False)
    return {target: bool(hit) for target, hit in zip(target_ids, replies[0], strict=True)}


def following_states(*, user_id: int | None, target_ids: Sequence[int]) -> dict[int, bool]:
    """Whether `user_id` follows each of `target_ids`: one SMISMEMBER on the caller's
    following set (none for an anonymous caller or an empty list)."""
    if user_id is None or not target_ids:
        return dict.fromkeys(target_ids, False)
    found = get_redis().smismember(keys.following(user_id), list(target_ids))
    return {target: bool(hit) for target, hit in zip(target_ids, found, strict=True)}
