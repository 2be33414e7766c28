"""Save and unsave: the Favourite row and the target's `favourites` count in one
transaction (the unique constraint decides between racing saves); after commit, Redis
(the saver's set of that kind) is synced from the committed row and the cached document
that shows the count is evicted. Saving a flash sale not yet started sets its reminder.
"""

from __future__ import annotations

from contextvars import ContextVar
from functools import partial
from typing import Any, TypedDict

from django.db import IntegrityError, transaction
from django.db.models import Count, F

from notifications import watches
from notifications.models import SaleWatch
from toolkit import clock
from toolkit.api import saved
from toolkit.errors import Conflict
from toolkit.redis import keys
from toolkit.redis.client import get_redis
from toolkit.redis.lock import RedisLock
from toolkit.transactions import retry_on_lock_conflict
from vouchers.models import Voucher

from . import pages
from .kinds import KINDS, Kind, kind_get
from .models import Favourite

# The target whose rows favourites_forget is deleting, for their post_delete receiver.
_forgetting: ContextVar[tuple[str, int] | None] = ContextVar("favourites_forgetting", default=None)


class SavedState(TypedDict):
    saved: bool
    favourites: int | None  # the target's count; None for vouchers (not counted)


@retry_on_lock_conflict
def favourite_save(*, user_id: int, kind: str, object_id: int) -> SavedState:
    """Save a shop, note (`blog`) or voucher (idempotent: a second save changes nothing).
    404 for an unknown kind or no such target (a hidden note included)."""
    spec = kind_get(kind)
    spec.check(object_id)
    with transaction.atomic():
        _lock_target(spec, object_id)
        try:
            # A savepoint: a duplicate leaves the target's lock held, so no racing unsave
            # can delete the row between the refusal and the check below.
            with transaction.atomic():
                row = Favourite.objects.create(user_id=user_id, kind=kind, object_id=object_id)
        except IntegrityError:  # saved already (or a racing save of the same won)
            if not _rows(user_id, kind, object_id).exists():
                raise  # not the duplicate we expected
            # A repeat changes no row but syncs Redis again: a client retrying after a
            # Redis blip (the first sync failed, logged) repairs its own state.
            transaction.on_commit(lambda: _sync(user_id, kind, object_id), robust=True)
        else:
            _count(spec, object_id, +1)
            if kind == saved.VOUCHER and _watch_if_upcoming(user_id, object_id):
                Favourite.objects.filter(pk=row.pk).update(made_watch=True)
            transaction.on_commit(lambda: _changed(spec, user_id, object_id), robust=True)
    return _state(spec, object_id, saved=True)


@retry_on_lock_conflict
def favourite_unsave(*, user_id: int, kind: str, object_id: int) -> SavedState:
    """Unsave (idempotent: unsaving what is not saved changes nothing). 404 for an
    unknown kind, or no such target unless the caller saved it (a note hidden since can
    still be unsaved). A voucher's reminder goes too if saving it made the reminder."""
    spec = kind_get(kind)
    with transaction.atomic():
        _lock_target(spec, object_id)
        row = _rows(user_id, kind, object_id).select_for_update().first()
        if row is None:
            spec.check(object_id)  # nothing to unsave: still a 404 for no such target
        else:
            row.counted = True  # counted here: the post_delete receiver leaves it
            row.delete()
            _count(spec, object_id, -1)
            if row.made_watch:
                watches.sale_unwatch(user_id=user_id, voucher_id=object_id)
            transaction.on_commit(lambda: _changed(spec, user_id, object_id), robust=True)
    if row is None:
        transaction.on_commit(lambda: _sync(user_id, kind, object_id), robust=True)
    return _state(spec, object_id, saved=False)


def favourites_forget(*, kind: str, object_id: int) -> int:
    """A deleted target's rows go with it (call inside its deletion's transaction): the
    post_delete receiver takes each out of its saver's set after commit, and moves no count
    and evicts no document of a target that is gone. Returns how many."""
    forgetting = _forgetting.set((kind, object_id))
    try:
        deleted, _ = Favourite.objects.filter(kind=kind, object_id=object_id).delete()
    finally:
        _forgetting.reset(forgetting)
    return deleted


def favourite_row_deleted(row: Favourite) -> None:
    """A row deleted past the services (its user's deletion, its target's, the admin):
    its target's count drops in the same transaction, and after commit it leaves its
    saver's set and the count's cached document."""
    if getattr(row, "counted", False):
        return
    user_id, kind, object_id = row.user_id, row.kind, row.object_id
    if _forgetting.get() == (kind, object_id):  # its target is gone: only the set to sync
        transaction.on_commit(lambda: _sync(user_id, kind, object_id), robust=True)
        return
    spec = KINDS[kind]
    _count(spec, object_id, -1)
    transaction.on_commit(lambda: _changed(spec, user_id, object_id), robust=True)


def favourites_rebuild() -> tuple[int, int]:
    """Rewrite every favourites set from the rows (after Redis lost data, or drifted):
    sets with no row left are deleted. Then count every shop's and note's favourites
    again, fixing those that drifted. Returns (sets written, counts fixed)."""
    client = get_redis()
    sets: dict[str, list[int]] = {}
    for user_id, kind, object_id in Favourite.objects.values_list(
        "user_id", "kind", "object_id"
    ).iterator():
        sets.setdefault(keys.favourites(user_id, kind), []).append(object_id)
    stale = [
        key
        for key in client.scan_iter(match=keys.favourites_pattern(), count=1000)
        if key.decode() not in sets
    ]
    if stale:
        client.delete(*stale)
    for key, ids in sets.items():
        pipe = client.pipeline(transaction=True)  # MULTI (one key, one slot): never seen empty
        pipe.delete(key)
        pipe.sadd(key, *ids)
        pipe.execute()
    fixed = sum(_recount(spec) for spec in KINDS.values() if spec.counted is not None)
    return len(sets), fixed


def _recount(spec: Kind) -> int:
    """Fix the counts of one kind that differ from their rows, each under its row's lock
    (which every save and unsave of it takes first), so no change is lost meanwhile."""
    model = spec.counted
    assert model is not None
    counts = dict(
        Favourite.objects.filter(kind=spec.name)
        .values("object_id")
        .annotate(n=Count("id"))
        .values_list("object_id", "n")
    )
    stored = model.objects.values_list("id", "favourites").iterator()
    drifted = [pk for pk, count in stored if count != counts.get(pk, 0)]
    for pk in drifted:
        with transaction.atomic():
            if model.objects.select_for_update().filter(pk=pk).exists():
                exact = Favourite.objects.filter(kind=spec.name, object_id=pk).count()
                model.objects.filter(pk=pk).update(favourites=exact)
                transaction.on_commit(partial(_evict, spec, pk), robust=True)
    return len(drifted)


def _rows(user_id: int, kind: str, object_id: int) -> Any:
    return Favourite.objects.filter(user_id=user_id, kind=kind, object_id=object_id)


def _lock_target(spec: Kind, object_id: int) -> None:
    """Lock the counted row (a shop's, a note's) before the Favourite row is touched:
    every change of one target's favourites then runs one at a time, and an unsave's
    delete cannot meet two saves' duplicate checks in a deadlock (decision 117's lesson).
    Vouchers are not counted, and their rows are hot in a sale: not locked."""
    if spec.counted is not None:
        list(spec.counted.objects.select_for_update().filter(pk=object_id).values_list("pk"))


def _count(spec: Kind, object_id: int, delta: int) -> None:
    """The target's count moves with the row, in its transaction."""
    if spec.counted is None:
        return
    rows = spec.counted.objects.filter(pk=object_id)
    if delta < 0:
        rows = rows.filter(favourites__gt=0)
    rows.update(favourites=F("favourites") + delta)


def _watch_if_upcoming(user_id: int, voucher_id: int) -> bool:
    """Set the reminder of a flash sale not yet started, as "remind me" does
    (notifications.watches); True if this made it (it was not set already)."""
    voucher = Voucher.objects.filter(pk=voucher_id).first()
    if voucher is None or not voucher.is_seckill:
        return False
    if voucher.status_at(clock.now()) != Voucher.Status.PENDING:
        return False
    if SaleWatch.objects.filter(user_id=user_id, voucher_id=voucher_id).exists():
        return False
    try:
        watches.sale_watch(user_id=user_id, voucher_id=voucher_id)
    except Conflict:  # it started (or was voided) a moment ago: saved, nothing to remind
        return False
    return True


def _state(spec: Kind, object_id: int, *, saved: bool) -> SavedState:
    count = None
    if spec.counted is not None:
        found = spec.counted.objects.filter(pk=object_id).values_list("favourites", flat=True)
        count = found.first() or 0
    return {"saved": saved, "favourites": count}


def _changed(spec: Kind, user_id: int, object_id: int) -> None:
    _sync(user_id, spec.name, object_id)
    _evict(spec, object_id)


def _evict(spec: Kind, object_id: int) -> None:
    if spec.evict is not None:
        spec.evict(object_id)


def _sync(user_id: int, kind: str, object_id: int) -> None:
    """Make Redis agree with the committed row (or its absence), and start a new
    generation of the user's first page of the kind (favourites.pages). Syncs of one
    favourite run one at a time and read the row inside the lock, so the last one applies
    the truth even when a save and an unsave commit in one order and reach here in the
    other."""
    with RedisLock(f"favourite-sync:{user_id}:{kind}:{object_id}", ttl=10, wait=10):
        key = keys.favourites(user_id, kind)
        pipe = get_redis().pipeline(transaction=False)  # one tag: one round trip
        if _rows(user_id, kind, object_id).exists():
            pipe.sadd(key, object_id)
        else:
            pipe.srem(key, object_id)
        pages.queue_changed(pipe, user_id, kind)  # the next read of the list is fresh
        pipe.execute()
