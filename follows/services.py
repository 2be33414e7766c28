"""Follow and unfollow: DB row and both users' counters in one transaction; then, after
commit, Redis (the following set and the feed inbox) is synced from the committed row."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils.translation import gettext

from accounts.models import User, UserInfo
from accounts.selectors import user_get
from toolkit.errors import Conflict
from toolkit.redis.client import get_redis
from toolkit.redis.lock import RedisLock
from toolkit.redis.multikey import intersection
from toolkit.transactions import retry_on_lock_conflict

from . import keys
from .errors import Code
from .models import Follow
from .signals import follow_synced


@retry_on_lock_conflict
def follow(*, user_id: int, target_id: int) -> bool:
    """Follow `target_id` (idempotent); True if this call created the follow."""
    _check_target(user_id, target_id)
    _ensure_counters(user_id, target_id)
    try:
        with transaction.atomic():
            _lock_counters(user_id, target_id)
            created = not Follow.objects.filter(user_id=user_id, followed_id=target_id).exists()
            if created:
                Follow.objects.create(user_id=user_id, followed_id=target_id)
                _count(user_id, target_id, +1)
                transaction.on_commit(lambda: _sync(user_id, target_id), robust=True)
    except IntegrityError:  # a row written around the service (admin, a script)
        if not Follow.objects.filter(user_id=user_id, followed_id=target_id).exists():
            raise  # not the duplicate we expected
        created = False
    if not created:
        _sync_after_repeat(user_id, target_id)
    return created


@retry_on_lock_conflict
def unfollow(*, user_id: int, target_id: int) -> bool:
    """Stop following (idempotent); True if a follow was removed. Nobody follows
    themselves, so unfollowing yourself removes nothing and succeeds."""
    if user_id == target_id:
        return False  # the caller exists: they are signed in
    _check_target(user_id, target_id)
    _ensure_counters(user_id, target_id)
    with transaction.atomic():
        _lock_counters(user_id, target_id)
        removed, _ = Follow.objects.filter(user_id=user_id, followed_id=target_id).delete()
        if removed:
            _count(user_id, target_id, -1)
            transaction.on_commit(lambda: _sync(user_id, target_id), robust=True)
    if not removed:
        _sync_after_repeat(user_id, target_id)
    return bool(removed)


def is_following(*, user_id: int, target_id: int) -> bool:
    # redis-py annotates the member as str; it takes any value it can encode, as SADD does.
    return bool(get_redis().sismember(keys.following(user_id), target_id))  # type: ignore[arg-type]


def common_follows(*, user_id: int, other_id: int) -> list[User]:
    """Users both follow: the intersection of the two following sets (SINTER; on a
    Cluster, where the two sets live in different slots, intersected here), one DB query."""
    user_get(user_id=other_id)
    ids = sorted(int(m) for m in intersection([keys.following(user_id), keys.following(other_id)]))
    return list(User.objects.filter(pk__in=ids, is_active=True).order_by("id"))


def following_sets_rebuild() -> int:
    """Rewrite every following set from the DB (after Redis lost data, or drifted);
    sets of users who follow nobody any more are deleted. Returns the users rewritten."""
    client = get_redis()
    by_user: dict[int, list[int]] = {}
    for user_id, followed_id in Follow.objects.values_list("user_id", "followed_id").iterator():
        by_user.setdefault(user_id, []).append(followed_id)
    live = {keys.following(user_id) for user_id in by_user}
    stale = [
        key
        for key in client.scan_iter(match=keys.following_pattern(), count=1000)
        if key.decode() not in live
    ]
    if stale:
        client.delete(*stale)
    for user_id, followed in by_user.items():
        pipe = client.pipeline(transaction=True)  # MULTI (one key, one slot): never seen empty
        pipe.delete(keys.following(user_id))
        pipe.sadd(keys.following(user_id), *followed)
        pipe.execute()
    return len(by_user)


def _check_target(user_id: int, target_id: int) -> None:
    user_get(user_id=target_id)  # 404 for unknown or disabled users
    if user_id == target_id:
        # A well-formed id the rule refuses: a conflict, as the schema cannot know the
        # caller's own id (a 400 would say the request was malformed).
        raise Conflict(gettext("You cannot follow yourself."), code=Code.CANNOT_FOLLOW_SELF)


def _ensure_counters(user_id: int, target_id: int) -> None:
    """Both users' counter rows exist, made in a statement of their own (autocommit):
    creating one inside the follow's transaction would leave InnoDB's shared lock of a
    duplicate-key check behind, for the row lock below to deadlock on."""
    ids = {user_id, target_id}
    missing = ids - set(UserInfo.objects.filter(user_id__in=ids).values_list("user_id", flat=True))
    if missing:
        UserInfo.objects.bulk_create([UserInfo(user_id=u) for u in missing], ignore_conflicts=True)


def _lock_counters(user_id: int, target_id: int) -> None:
    """Lock both users' counter rows, in id order, before the follow row is touched.
    Every change to one pair then runs one at a time: without it, InnoDB deadlocks
    when an unfollow's delete and two follows' duplicate checks meet on one index
    entry (two shared locks that both want to become exclusive)."""
    ids = sorted((user_id, target_id))
    list(UserInfo.objects.select_for_update().filter(user_id__in=ids).order_by("user_id"))


def _count(user_id: int, target_id: int, delta: int) -> None:
    """Both counters move with the row, in its transaction (rows already locked)."""
    for uid, field in ((user_id, "followee"), (target_id, "fans")):
        rows = UserInfo.objects.filter(user_id=uid)
        if delta < 0:
            rows = rows.filter(**{f"{field}__gt": 0})
        rows.update(**{field: F(field) + delta})


def _sync_after_repeat(user_id: int, target_id: int) -> None:
    """A repeated follow or unfollow changes no row, but re-syncs Redis: a client that
    retries after a Redis blip (the first sync failed, logged) repairs its own state."""
    transaction.on_commit(lambda: _sync(user_id, target_id), robust=True)


def _sync(user_id: int, target_id: int) -> None:
    """Make Redis agree with the committed row (or its absence). Syncs of one pair run
    one at a time and read the row inside the lock, so the last one applies the truth
    even when follow and unfollow commit in one order and reach here in the other."""
    with RedisLock(f"follow-sync:{user_id}:{target_id}", ttl=10, wait=10):
        following = Follow.objects.filter(user_id=user_id, followed_id=target_id).exists()
        if following:
            get_redis().sadd(keys.following(user_id), target_id)
        else:
            get_redis().srem(keys.following(user_id), target_id)
        follow_synced.send(sender=Follow, user_id=user_id, target_id=target_id, following=following)
