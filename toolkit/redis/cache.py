"""A generic read-through cache for JSON values, hardened against the classic failures.

- avalanche: every TTL gets random jitter, so keys written together expire apart;
- penetration: a missing item is cached as a short-lived null marker, and an
  optional Bloom filter turns never-existing ids away before Redis or the DB;
- breakdown (hot key rebuild): on a miss only the holder of a per-key lock runs
  the loader; the others poll the cache briefly and then read what it wrote;
- logical expiry: for preheated keys that never expire physically, a stale value
  is served at once while exactly one background rebuild refreshes it; `preheat`
  does the same for an ordinary entry (a logical expiry in a 9-byte header of the
  same string, so the hit path keeps its single GET: decision 487);
- optionally, a near cache (nearcache.py) keeps hits in process memory, kept
  fresh by Redis key-tracking invalidations, so a hot hit costs no round trip;
- Redis unreachable: `lookup` (without piggybacked commands) and `lookup_many` answer
  from their loaders, uncached, so reads whose data lives in the database go on.

Values are stored as JSON bytes and handed back as bytes, so a view can send
them without decoding and re-encoding. The cache knows nothing about shops:
callers pass an identifier and a loader returning a JSON-able value or None.
"""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, cast

import redis
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connections

from toolkit import clock, runtime
from toolkit.metrics import cache_counters

from . import keys
from .bloom import BloomFilter
from .client import get_redis
from .lock import RedisLock
from .nearcache import MISS, NearCache
from .outage import OUTAGE_ERRORS
from .scripts import lua

log = logging.getLogger(__name__)

NULL = b""  # the null marker: valid JSON is never empty
# A preheated entry: this byte (valid JSON never starts with it), the logical expiry in
# Unix milliseconds as 8 big-endian bytes, then the JSON (decision 487).
PREHEATED = b"\x00"
_HEADER = 9
Loader = Callable[[], Any]
Piggyback = Callable[[redis.client.Pipeline], None]
# Reads a key through a client, or queues the read on a pipeline (a pipeline is a client).
Reader = Callable[[redis.Redis, str], Any]


@dataclass(frozen=True, slots=True)
class Lookup:
    raw: bytes | None  # the item's JSON, or None when it does not exist
    extra: list[Any]  # replies to the piggybacked commands


_executor: ThreadPoolExecutor | None = None
_STORE = lua(__file__, "cache_store.lua")
_VERSION_TTL = 24 * 60 * 60  # far longer than any load; then "never evicted" is equivalent
_LOCK_TTL = 10  # seconds a rebuild may hold a key's lock
_POLL_INTERVAL = 0.02  # seconds between a waiting reader's looks at the cache


def rebuild_pool() -> ThreadPoolExecutor:
    """The threads background refreshes of stale entries run on, started on first use
    (and again after a fork or a stop: see `_finish_rebuilds`)."""
    global _executor
    if _executor is None:
        _executor = ThreadPoolExecutor(max_workers=4, thread_name_prefix="cache-rebuild")
    return _executor


def encode(value: Any) -> bytes:
    return json.dumps(
        value, cls=DjangoJSONEncoder, ensure_ascii=False, separators=(",", ":")
    ).encode()


def store_unless_evicted(
    key: str, version_key: str, version: bytes, value: Any, ttl: float
) -> bool:
    """Store `value` at `key` for `ttl` seconds, unless an eviction happened since the
    value was loaded, because then the value may be older than the write that evicted it.

    Every eviction bumps `version_key` (which shares `key`'s hash tag); `version` is what
    it read before the load. Returns whether it stored. CacheClient stores through this,
    and so may caches kept elsewhere."""
    return bool(_STORE([key, version_key], [version, "plain", value, _milliseconds(ttl), 0]))


def _milliseconds(ttl: float) -> int:
    """A TTL as the store script takes it: whole milliseconds, at least one."""
    return max(1, int(ttl * 1000))


class CacheClient:
    """A read-through JSON cache for one kind of object, so every cached read in the
    project shares one set of protections. Keys are `cache:{<namespace>:<ident>}`."""

    def __init__(
        self,
        namespace: str,
        *,
        ttl: float,
        jitter: float = 0.2,
        null_ttl: float = 60,
        rebuild_wait: float = 2.0,
        bloom: BloomFilter | None = None,
        near_ttl: float = 0,
        logical_ttl: float = 0,
        preheat_keep: float = 0,
    ) -> None:
        self.namespace = namespace
        # Preheated entries (`preheat`): fresh this long, physically kept this long.
        self.logical_ttl, self.preheat_keep = logical_ttl, preheat_keep
        self.ttl, self.jitter, self.null_ttl = ttl, jitter, null_ttl
        self.rebuild_wait = rebuild_wait
        self.bloom = bloom
        self.near = NearCache(keys.cache_prefix(namespace), ttl=near_ttl) if near_ttl > 0 else None
        # dianping_cache_lookups_total{cache=namespace, result=hit|miss}
        self.hits, self.misses = cache_counters(namespace)

    def key(self, ident: object) -> str:
        return keys.cache(self.namespace, str(ident))

    # --- cache-aside with a mutex rebuild ----------------------------------------------

    def get(self, ident: object, loader: Loader) -> bytes | None:
        """The cached JSON for `ident`, loading it on a miss; None if the item does not exist."""
        return self.lookup(ident, loader).raw

    def lookup(
        self, ident: object, loader: Loader, *, piggyback: Piggyback | None = None
    ) -> Lookup:
        """Like `get`, but a hit costs a single round trip: the Bloom check, the GET and
        any commands `piggyback` queues (such as refreshing the caller's login token) go
        in one pipeline. The replies to the piggybacked commands come back in `.extra`."""
        key = self.key(ident)
        local = self.near.get(key) if self.near is not None else MISS
        if local is not MISS and piggyback is None:
            self.hits.inc()
            return Lookup(None if local == NULL else local, [])  # no round trip at all
        pipe = get_redis().pipeline(transaction=False)
        if piggyback is not None:
            piggyback(pipe)
        if local is not MISS:
            self.hits.inc()
            return Lookup(None if local == NULL else local, pipe.execute())
        token = self.near.read_token(key) if self.near is not None else None
        extra_count = len(pipe)
        if self.bloom is not None:
            self.bloom.queue_check(pipe, str(ident))
        pipe.get(key)
        try:
            replies = pipe.execute()
        except OUTAGE_ERRORS:
            if piggyback is not None:
                raise  # what the caller queued (a token's refresh) needs Redis
            self.misses.inc()
            loaded = self._load(loader)  # Redis unreachable: the database still answers
            return Lookup(None if loaded == NULL else loaded, [])
        extra, own = replies[:extra_count], replies[extra_count:]
        if self.bloom is not None and not self.bloom.verdict(own[0]):
            return Lookup(None, extra)  # turned away by the filter: neither hit nor miss
        raw = own[-1]
        if raw is None:
            self.misses.inc()
            raw = self._rebuild(key, loader, read=_read_plain, store=self._store_unless_evicted)
        else:
            self.hits.inc()
            if raw[:1] == PREHEATED:
                raw = self._preheated(key, raw, loader)
            if self.near is not None:
                self.near.put(key, raw, token)
        return Lookup(None if raw == NULL else raw, extra)

    def lookup_many(
        self, idents: list[Any], loader: Callable[[list[Any]], dict[Any, Any]]
    ) -> dict[Any, bytes | None]:
        """Several entries in one round trip, so a list page costs the same as one entry.
        The ids are known to exist, so there is no Bloom check; entries in the near cache
        cost no trip at all. Misses are loaded together by one call of
        `loader(missing) -> {ident: value or None}` (see `_load_many`)."""
        found: dict[Any, bytes | None] = {}
        asked: list[tuple[Any, str, object]] = []  # (ident, key, near cache read token)
        for ident in idents:
            key = self.key(ident)
            local = self.near.get(key) if self.near is not None else MISS
            if local is MISS:
                token = self.near.read_token(key) if self.near is not None else None
                asked.append((ident, key, token))
            else:
                found[ident] = None if local == NULL else local
        if found:
            self.hits.inc(len(found))
        if not asked:
            return found
        pipe = get_redis().pipeline(transaction=False)
        for _, key, _ in asked:
            pipe.get(key)
        try:
            replies = pipe.execute()
        except OUTAGE_ERRORS:  # Redis unreachable: the database still answers
            self.misses.inc(len(asked))
            loaded = loader([ident for ident, _, _ in asked])
            return found | {ident: self._decoded(loaded.get(ident)) for ident, _, _ in asked}
        missing = []
        for (ident, key, token), raw in zip(asked, replies, strict=True):
            if raw is None:
                missing.append(ident)
                continue
            if raw[:1] == PREHEATED:
                raw = self._preheated(key, raw, _one_of(loader, ident))
            found[ident] = None if raw == NULL else raw
            if self.near is not None:
                self.near.put(key, raw, token)
        if len(missing) < len(asked):
            self.hits.inc(len(asked) - len(missing))
        if missing:
            self.misses.inc(len(missing))
            found.update(self._load_many(missing, loader))
        return found

    def _load_many(
        self, idents: list[Any], loader: Callable[[list[Any]], dict[Any, Any]]
    ) -> dict[Any, bytes | None]:
        """Load misses together and store them unless evicted meanwhile: their versions
        are read before the loader runs, as `_rebuild` does for one entry, and the stores
        go in one round trip. No lock: a caller's misses cost one load, not one each."""
        names = [self.key(ident) for ident in idents]
        versions = _versions(names)
        loaded = loader(idents)
        raws = {ident: self._encoded(loaded.get(ident)) for ident in idents}
        _STORE.run_many(
            [
                (
                    [key, keys.cache_version(key)],
                    [version, "plain", raws[ident], self._ttl_ms(raws[ident]), 0],
                )
                for ident, key, version in zip(idents, names, versions, strict=True)
            ]
        )
        return {ident: None if raw == NULL else raw for ident, raw in raws.items()}

    def evict(self, ident: object) -> None:
        """Drop the entry and bump its version, so a rebuild already loading the old
        row cannot put it back (see `_rebuild`)."""
        self.evict_many([ident])

    def evict_many(self, idents: Iterable[object]) -> None:
        """`evict` for several entries in one round trip (any slots: no MULTI). Each
        version moves before its entry goes, so a rebuild storing in between is either
        refused (it read the old version) or deleted with the entry."""
        names = [self.key(ident) for ident in set(idents)]
        if not names:
            return
        pipe = get_redis().pipeline(transaction=False)
        for key in names:
            version = keys.cache_version(key)
            pipe.incr(version)
            pipe.expire(version, _VERSION_TTL)
            pipe.delete(key)
        pipe.execute()
        if self.near is not None:
            for key in names:
                self.near.evict(key)

    def _ttl(self, raw: bytes) -> float:
        if raw == NULL:
            return self.null_ttl
        return self.ttl + random.uniform(0, self.jitter * self.ttl)

    def _ttl_ms(self, raw: bytes) -> int:
        return _milliseconds(self._ttl(raw))

    def _store_unless_evicted(self, key: str, raw: bytes, version: bytes) -> None:
        store_unless_evicted(key, keys.cache_version(key), version, raw, self._ttl(raw))

    def _rebuild(
        self,
        key: str,
        loader: Loader,
        *,
        read: Reader,
        store: Callable[[str, bytes, bytes], None],
    ) -> bytes | None:
        """Run `loader` under the key's lock, or wait for whoever holds it.

        A reader that cannot get the lock polls the cache (the holder will fill
        it); after `rebuild_wait` it loads for itself without writing, so a dead
        rebuilder costs latency, never an error. The version read before loading
        makes the store a no-op if a writer evicted the key meanwhile: the loaded
        value may predate that write, and must not outlive it in the cache.
        """
        deadline = time.monotonic() + self.rebuild_wait
        while True:
            lock = RedisLock(keys.cache_lock(key), ttl=_LOCK_TTL)
            if lock.acquire():
                try:
                    # Someone may have filled it while we queued.
                    version, raw = _read_with_version(key, read)
                    if raw is None:
                        raw = self._load(loader)
                        store(key, raw, version)
                finally:
                    lock.release()  # owner-checked: never frees a lock we lost
                raw = _body(raw)
                return None if raw == NULL else raw
            time.sleep(_POLL_INTERVAL)
            raw = read(get_redis(), key)
            if raw is not None:
                raw = _body(raw)
                return None if raw == NULL else raw
            if time.monotonic() >= deadline:
                log.warning("cache rebuild of %s timed out; loading without caching", key)
                raw = self._load(loader)
                return None if raw == NULL else raw

    @staticmethod
    def _load(loader: Loader) -> bytes:
        return CacheClient._encoded(loader())

    @staticmethod
    def _encoded(value: Any) -> bytes:
        return NULL if value is None else encode(value)

    @staticmethod
    def _decoded(value: Any) -> bytes | None:
        """A loaded value as `lookup_many` hands entries back: JSON bytes, None if absent."""
        return None if value is None else encode(value)

    # --- preheated entries: logical expiry in the plain entry -----------------------

    def preheat(self, ident: object, loader: Loader) -> bool:
        """Load `ident` and store it as a preheated entry: fresh for `logical_ttl`, kept
        physically for `preheat_keep` (a shop that stops being hot goes in the end), and
        served even stale, refreshed behind the key's lock (`_preheated`). Not stored if
        an eviction happened during the load; returns whether it stored."""
        return self.preheat_many([ident], lambda _: {ident: loader()}) == 1

    def preheat_many(
        self, idents: Sequence[Any], loader: Callable[[list[Any]], dict[Any, Any]]
    ) -> int:
        """`preheat` for many entries: their versions in one round trip, one load of them
        all (`loader(idents)`, absent ones left out), the stores in one more round trip (a
        call at a time on a Cluster). Returns how many were stored."""
        idents = list(idents)
        names = [self.key(ident) for ident in idents]
        versions = _versions(names)
        loaded = loader(idents)
        replies = _STORE.run_many(
            [
                self._preheated_store(key, self._encoded(loaded.get(ident)), version)
                for ident, key, version in zip(idents, names, versions, strict=True)
            ]
        )
        failed = next((reply for reply in replies if isinstance(reply, Exception)), None)
        if failed is not None:
            raise failed
        return sum(1 for reply in replies if reply)

    def _store_preheated(self, key: str, raw: bytes, version: bytes) -> bool:
        return bool(_STORE(*self._preheated_store(key, raw, version)))

    def _preheated_store(self, key: str, raw: bytes, version: bytes) -> tuple[list[str], list[Any]]:
        """The store script's keys and arguments for a preheated entry of `raw`, fresh for
        `logical_ttl` from now."""
        expire_ms = int((clock.now_seconds() + self.logical_ttl) * 1000)
        wrapped = PREHEATED + expire_ms.to_bytes(8, "big") + raw
        ttl = self.null_ttl if raw == NULL else self.preheat_keep
        return [key, keys.cache_version(key)], [version, "plain", wrapped, _milliseconds(ttl), 0]

    def _preheated(self, key: str, wrapped: bytes, loader: Loader) -> bytes:
        """The JSON of a preheated entry; past its logical expiry, whoever takes the key's
        lock schedules one background refresh and everyone is served the stale value."""
        expire_at = int.from_bytes(wrapped[1:_HEADER], "big") / 1000
        if expire_at <= clock.now_seconds():
            self._refresh_behind_lock(key, loader, _read_plain, _expiry, self._store_preheated)
        return wrapped[_HEADER:]

    def _refresh_behind_lock(
        self,
        key: str,
        loader: Loader,
        read: Reader,
        expiry_of: Callable[[bytes], float],
        store: Callable[[str, bytes, bytes], object],
    ) -> None:
        """A stale entry was served: whoever takes the key's lock schedules the one
        background refresh (unless one landed since our read); everyone else goes on."""
        lock = RedisLock(keys.cache_lock(key), ttl=_LOCK_TTL)
        if not lock.acquire():
            return
        version, fresh = _read_with_version(key, read)
        if fresh is not None and expiry_of(fresh) > clock.now_seconds():
            lock.release()
            return
        try:
            rebuild_pool().submit(self._refresh, key, loader, store, lock, version)
        except RuntimeError:  # the pool is shut down (the process is stopping)
            lock.release()

    def _refresh(
        self,
        key: str,
        loader: Loader,
        store: Callable[[str, bytes, bytes], object],
        lock: RedisLock,
        version: bytes,
    ) -> None:
        try:
            store(key, self._load(loader), version)
        except Exception:
            log.exception("background refresh of %s failed; the stale value stays", key)
        finally:
            lock.release()
            connections.close_all()  # this pool thread's own DB connections

    # --- logical expiry ---------------------------------------------------------------

    def get_logical(self, ident: object, loader: Loader, *, logical_ttl: float) -> bytes | None:
        """Serve even a stale value at once; past its logical expiry, one reader
        schedules a background rebuild and everyone keeps getting the old value
        until it lands. A key that was never preheated is built synchronously."""
        key = self.key(ident)
        # Bytes (this client does not decode replies); both fields or neither (_STORE).
        data, expire_at = cast("list[bytes]", get_redis().hmget(key, "data", "expire_at"))
        if data is None:
            self.misses.inc()
            return self._rebuild(
                key,
                loader,
                read=_read_logical,
                store=lambda k, raw, version: self._store_logical(k, raw, logical_ttl, version),
            )
        self.hits.inc()  # a stale value too: it is served without loading
        if float(expire_at) <= clock.now_seconds():

            def store(k: str, raw: bytes, version: bytes) -> None:
                self._store_logical(k, raw, logical_ttl, version)

            self._refresh_behind_lock(key, loader, _read_expiry, float, store)
        return None if data == NULL else data

    def put_logical(self, ident: object, value: Any, *, logical_ttl: float) -> bytes:
        raw = encode(value)
        self._store_logical(self.key(ident), raw, logical_ttl, None)
        return raw

    def _store_logical(
        self, key: str, raw: bytes, logical_ttl: float, version: bytes | None
    ) -> None:
        """Write a logical entry; with a `version`, only if the key was not evicted since."""
        if version is None:
            version = cast("bytes | None", get_redis().get(keys.cache_version(key))) or b"0"
        expire_at = repr(clock.now_seconds() + logical_ttl)
        ttl = int(self.null_ttl * 1000) if raw == NULL else 0  # "missing" is not kept forever
        _STORE([key, keys.cache_version(key)], [version, "logical", raw, ttl, expire_at])


def _body(raw: bytes) -> bytes:
    """A stored entry's JSON (or null marker), without a preheated entry's header."""
    return raw[_HEADER:] if raw[:1] == PREHEATED else raw


def _expiry(raw: bytes) -> float:
    """A stored entry's logical expiry (Unix seconds); 0 for an entry not preheated."""
    return int.from_bytes(raw[1:_HEADER], "big") / 1000 if raw[:1] == PREHEATED else 0.0


def _one_of(loader: Callable[[list[Any]], dict[Any, Any]], ident: Any) -> Loader:
    """A one-entry loader from a many-entry one (for a refresh of one stale entry)."""
    return lambda: loader([ident]).get(ident)


def _read_plain(client: redis.Redis, key: str) -> Any:
    return client.get(key)


def _read_logical(client: redis.Redis, key: str) -> Any:
    return client.hget(key, "data")


def _read_expiry(client: redis.Redis, key: str) -> Any:
    return client.hget(key, "expire_at")


def _versions(names: list[str]) -> list[bytes]:
    """Each key's eviction version (b"0" for none yet), read before a load in one round
    trip, for stores that must not land after an eviction (`_STORE`)."""
    pipe = get_redis().pipeline(transaction=False)
    for key in names:
        pipe.get(keys.cache_version(key))
    return [version or b"0" for version in pipe.execute()]


def _read_with_version(key: str, read: Reader) -> tuple[bytes, Any]:
    """The key's eviction version and `read` of the key, in one round trip: both share
    the key's hash tag, so this holds in a Cluster too."""
    pipe = get_redis().pipeline(transaction=False)
    pipe.get(keys.cache_version(key))
    read(pipe, key)
    version, value = pipe.execute()
    return version or b"0", value


def _finish_rebuilds(*, wait: bool = True) -> None:
    """Let rebuilds in flight finish (between tests: one finishing after a FLUSHDB would
    write into the next test), and start a fresh pool next time."""
    global _executor
    if _executor is not None:
        _executor.shutdown(wait=wait)
        _executor = None


def _forget_pool_after_fork() -> None:
    global _executor
    _executor = None  # the parent's threads do not exist in a forked child


runtime.register(
    runtime.Part(
        "cache-rebuilds",
        reset=_finish_rebuilds,
        stop=lambda: _finish_rebuilds(wait=False),
        after_fork=_forget_pool_after_fork,
    )
)
