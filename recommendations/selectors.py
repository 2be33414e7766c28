"""The read of "guess you like" (decision 407): the reader's history and what they saved
and rated ride on the token's round trip; their recent shops' neighbour lists take one
more unless this process read them lately; the shops come from the shop cache. A reader
with no history, or too few suggestions, gets popular shops near them, kept a minute per
process."""

from __future__ import annotations

import threading
from typing import Any

from django.conf import settings

from shops import keys as shops_keys
from shops.cities import city_centre
from shops.errors import CityNotFound
from shops.models import Shop
from shops.selectors import nearby_type_ids, shop_raws, with_open_now, with_saved
from toolkit import clock, runtime
from toolkit.api import saved
from toolkit.redis import keys as toolkit_keys
from toolkit.redis.client import get_redis

from . import keys
from .model import HISTORY, SCORED, rank

LIMIT = 10  # suggestions answered
POOL = 50  # popular shops kept per place: enough to leave out a reader's own
_CELL = 100  # places are cells of 1/100 degree (about a kilometre)
_MEMO_MAX = 4096
_POPULARITY = ("-comments", "-sold", "-score", "id")

_NEIGHBOURS_MAX = 5000  # shops whose lists a process holds (a list: 20 pairs at most)

_memo: dict[tuple[int, int, int], tuple[float, list[int]]] = {}
_neighbours: dict[int, tuple[float, list[tuple[int, float]]]] = {}
_memo_lock = threading.Lock()


def queue_reader(pipe: Any, user_id: int | None) -> None:
    """Queue the reader's state on the token's pipeline: recent shops, saved, rated."""
    if user_id is not None:
        pipe.zrange(keys.recs_history(user_id), 0, HISTORY - 1, desc=True)
        pipe.smembers(toolkit_keys.favourites(user_id, saved.SHOP))
        pipe.smembers(keys.recs_rated(user_id))


def suggestions(replies: list[Any], *, x: float | None, y: float | None, city_id: int) -> list[int]:
    """The reader's suggested shop ids, best first, from the replies to `queue_reader`:
    by their recent shops' neighbours, then popular shops of the city near (x, y) (its
    centre without), never one they rated, saved or interacted with lately."""
    history, saved_ids, rated = replies[:3]
    recent = [int(member) for member in history]
    exclude = {int(member) for member in (*saved_ids, *rated)}
    picked: list[int] = []
    if recent:
        lists = neighbour_lists(recent)
        picked = rank(recent, [lists[shop_id] for shop_id in recent], exclude, LIMIT)
    if len(picked) < LIMIT:
        left_out = exclude | set(recent) | set(picked)
        filler = [shop_id for shop_id in popular_near(x, y, city_id) if shop_id not in left_out]
        picked += filler[: LIMIT - len(picked)]
    return picked


def neighbour_lists(shop_ids: list[int]) -> dict[int, list[tuple[int, float]]]:
    """Each shop's SCORED strongest neighbours as (shop, weight), strongest first: the
    copies this process read within RECS_NEIGHBOURS_TTL seconds, the rest in one round
    trip. A reader's own history and exclusions are always read live; only how shops
    relate, which one event barely moves, may be that old."""
    now = clock.now_seconds()
    found: dict[int, list[tuple[int, float]]] = {}
    for shop_id in shop_ids:
        held = _neighbours.get(shop_id)
        if held is not None and held[0] > now:
            found[shop_id] = held[1]
    missing = [shop_id for shop_id in shop_ids if shop_id not in found]
    if not missing:
        return found
    pipe = get_redis().pipeline(transaction=False)
    for shop_id in missing:
        pipe.zrange(keys.recs_neighbours(shop_id), 0, SCORED - 1, desc=True, withscores=True)
    expires = now + settings.RECS_NEIGHBOURS_TTL
    with _memo_lock:
        if len(_neighbours) + len(missing) > _NEIGHBOURS_MAX:
            _neighbours.clear()
        for shop_id, reply in zip(missing, pipe.execute(), strict=True):
            found[shop_id] = [(int(member), float(weight)) for member, weight in reply]
            if settings.RECS_NEIGHBOURS_TTL > 0:
                _neighbours[shop_id] = (expires, found[shop_id])
    return found


def cards_json(shop_ids: list[int]) -> bytes:
    """`{"results": [...]}`: the shops' cards as the shop lists show them, in order, spliced
    from the cached JSON without decoding it (`open_now` at now; `saved` false, as the
    reader's saved shops are never suggested); a shop deleted since is left out."""
    raws = shop_raws(shop_ids)
    cards = [raw for raw in map(raws.get, shop_ids) if raw is not None]
    now = clock.now()
    return (
        b'{"results":[' + b",".join(with_saved(with_open_now(r, now), False) for r in cards) + b"]}"
    )


def popular_near(x: float | None, y: float | None, city_id: int) -> list[int]:
    """The POOL most popular shops of the city (most reviewers, most sold, best score)
    among the nearest of each type within SHOP_NEARBY_RADIUS_M of (x, y) (the city's
    centre without), or of all its shops when none is near; kept RECS_POPULAR_TTL seconds
    per process, city and place."""
    if x is None or y is None:
        centre = city_centre(city_id)
        if centre is None:  # the city was deleted between two reads of the city list
            raise CityNotFound()
        x, y = centre
    cell = (city_id, round(x * _CELL), round(y * _CELL))
    now = clock.now_seconds()
    found = _memo.get(cell)
    if found is not None and found[0] > now:
        return found[1]
    pipe = get_redis().pipeline(transaction=False)
    for type_id in nearby_type_ids(None):
        pipe.execute_command(
            "GEOSEARCH",
            shops_keys.geo_shops(city_id, type_id),
            "FROMLONLAT",
            cell[1] / _CELL,
            cell[2] / _CELL,
            "BYRADIUS",
            settings.SHOP_NEARBY_RADIUS_M,
            "m",
            "COUNT",
            POOL,
            "ASC",
        )
    near = {int(member) for reply in pipe.execute() for member in reply}
    shops = Shop.objects.filter(city_id=city_id).order_by(*_POPULARITY)
    ids = list(shops.filter(pk__in=near).values_list("id", flat=True)[:POOL]) if near else []
    if not ids:
        ids = list(shops.values_list("id", flat=True)[:POOL])
    with _memo_lock:
        if len(_memo) >= _MEMO_MAX:
            _memo.clear()
        _memo[cell] = (now + settings.RECS_POPULAR_TTL, ids)
    return ids


def _forget() -> None:
    with _memo_lock:
        _memo.clear()
        _neighbours.clear()


runtime.register(
    runtime.Part(
        "recommendations-popular", reset=_forget, stop=lambda: None, after_fork=lambda: None
    )
)
