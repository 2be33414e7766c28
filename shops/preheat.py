"""Hot shops preheated in the cache with a logical expiry (decisions 487-489): the most
viewed of the last day and the shops other apps name (a running flash sale), so their first
read after a deploy or an eviction is a hit, and a read past the entry's logical expiry is
served the stale document while one background refresh runs behind the key's lock."""

from __future__ import annotations

from django.conf import settings
from django.utils.module_loading import import_string

from traffic import visits

from .caches import shop_cache
from .selectors import shop_documents_load

BATCH = 500  # shops loaded in one query and stored in one round trip


def hot_shop_ids() -> list[int]:
    """The shops to preheat: the SHOP_PREHEAT_TOP most viewed of the last day, then every
    shop a SHOP_PREHEAT_SOURCES function names; each once, in that order."""
    ids = dict.fromkeys(visits.most_viewed("shop", limit=settings.SHOP_PREHEAT_TOP))
    for source in settings.SHOP_PREHEAT_SOURCES:
        ids.update(dict.fromkeys(import_string(source)()))
    return list(ids)


def shops_preheat() -> int:
    """Store every hot shop's document as a preheated entry, fresh for SHOP_PREHEAT_TTL;
    returns how many were stored (one evicted by a write meanwhile is not, and is read
    through the cache as usual until the next run)."""
    cache, hot = shop_cache(), hot_shop_ids()
    return sum(
        cache.preheat_many(hot[start : start + BATCH], shop_documents_load)
        for start in range(0, len(hot), BATCH)
    )
