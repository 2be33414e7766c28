"""Follow reads: a user's followers and followees, newest follow first, scrolled."""

from __future__ import annotations

from collections.abc import Sequence

from accounts.selectors import user_get
from dianping.api.scroll import SCROLL_PAGE
from dianping.redis import keys
from dianping.redis.client import get_redis

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


def following_states(*, user_id: int | None, target_ids: Sequence[int]) -> dict[int, bool]:
    """Whether `user_id` follows each of `target_ids`: one SMISMEMBER on the caller's
    following set (none for an anonymous caller or an empty list)."""
    if user_id is None or not target_ids:
        return dict.fromkeys(target_ids, False)
    found = get_redis().smismember(keys.following(user_id), list(target_ids))
    return {target: bool(hit) for target, hit in zip(target_ids, found, strict=True)}
