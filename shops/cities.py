"""A request's city (decision 392): the cached city list (`GET /api/cities`), and the
resolution of a read's `city` code to the city's id that every per-city read starts with.
Both come from the list's cache entry, whose near copies make the resolution cost no round
trip on a hit (decision 394)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import orjson
from django.conf import settings

from toolkit.api.lists import listed

from .caches import cities_ident, city_cache
from .errors import CityNotFound
from .models import City
from .serializers import CitySerializer, reads_english


def cities_json() -> bytes:
    """Every city, in `sort` order, as the reader's language names them (JSON bytes)."""

    def load() -> list[dict[str, Any]]:
        return listed(CitySerializer(City.objects.order_by("sort", "id"), many=True))

    raw = city_cache().get(cities_ident(english=reads_english()), load)
    assert raw is not None  # only a loader returning None makes a miss, and this one never does
    return raw


def city_id(code: str | None) -> int:
    """The id of the city `code` names, of the default city (DEFAULT_CITY) when None;
    CityNotFound (404 `city_not_found`) when no city has that code."""
    found = _ids_by_code(cities_json()).get(code or settings.DEFAULT_CITY)
    if found is None:
        raise CityNotFound()
    return found


def city_centre(city_id: int) -> tuple[float, float] | None:
    """The centre (x, y) of the city `city_id`, from the cached list (None for no such city)."""
    return _centres(cities_json()).get(city_id)


@lru_cache(maxsize=8)
def _centres(raw: bytes) -> dict[int, tuple[float, float]]:
    return {city["id"]: (city["x"], city["y"]) for city in orjson.loads(raw)}


@lru_cache(maxsize=8)
def _ids_by_code(raw: bytes) -> dict[str, int]:
    """The list parsed once per entry (a near-cache hit hands back the same bytes)."""
    return {city["code"]: city["id"] for city in orjson.loads(raw)}


def default_city_id() -> int | None:
    """The default city's id from the database, for writes (None when it is missing)."""
    return City.objects.filter(code=settings.DEFAULT_CITY).values_list("id", flat=True).first()
