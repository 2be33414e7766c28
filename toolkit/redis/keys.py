"""The toolkit's own Redis keys (locks, ids, limiters, caches, Bloom filters, delay
queues, operations), and the conventions every app's keys follow. Each app builds its
own keys in its `keys.py` (blogs/keys.py, vouchers/keys.py, ...); every key is a row of
docs/redis-keys.md, checked by tests/toolkit/test_keys.py, which collects them all.

Keys touched together by one Lua script or MULTI share a hash tag `{...}` so they land
in one Redis Cluster slot; a user's keys are tagged `{u<user_id>}`, a shop's
`{s<shop_id>}` or `{d<shop_id>}`. Functions take already-validated identifiers. This
module imports no app.
"""

from __future__ import annotations


def lock(name: str) -> str:
    """Hash {owner token: re-entry depth} with a lease TTL."""
    return f"lock:{name}"


def id_counter(prefix: str, day: str) -> str:
    """Per-day counter behind the global id generator (`day` is YYYYMMDD, UTC)."""
    return f"id:{prefix}:{day}"


def sliding_window(scope: str, ident: str, window_ms: int) -> str:
    """Sorted set of request timestamps; one per (scope, subject, window length).

    The subject is the hash tag, so all windows of one subject are checked in one script.
    """
    return f"rl:sw:{{{scope}:{ident}}}:{window_ms}"


def funnel(scope: str, ident: str) -> str:
    """Hash {level, ts} of a leaky-bucket (funnel) limiter."""
    return f"rl:funnel:{scope}:{ident}"


def scratch(tag: str, index: int) -> str:
    """A short-lived key of a multi-key read on a Cluster; the keys of one read share the
    hash tag, so one command can read them together."""
    return f"scratch:{{{tag}}}:{index}"


def idempotency(scope: str, user_id: int, key_digest: str) -> str:
    """JSON {fingerprint, status, body} of the first answer to a user's request with an
    Idempotency-Key (its SHA-256, hex) in `scope` (e.g. `blog`); 24 h."""
    return f"idem:{scope}:{user_id}:{key_digest}"


def idempotency_lock(scope: str, user_id: int, key_digest: str) -> str:
    """Lock name (for RedisLock) held while the first request with a key runs."""
    return f"idem:{scope}:{user_id}:{key_digest}"


def heartbeat() -> str:
    """Timestamp written by the beat-scheduled heartbeat task, read by /api/health."""
    return "ops:heartbeat"


def task_succeeded(name: str) -> str:
    """Unix time of the last run of the periodic task `name` (its beat entry) that ended
    without an error; /metrics reads it (toolkit.periodic.task_succeeded)."""
    return f"ops:task-ok:{name}"


def db_identity() -> str:
    """The identity of the database this Redis's data belongs to (toolkit.identity)."""
    return "ops:db-identity"


def rebuilding(key: str) -> str:
    """Where a new version of `key` is built before RENAME swaps it in; `key` must
    carry a hash tag, which this keeps, so both share a slot."""
    return f"{key}:rebuild"


def cache_lock(cache_key: str) -> str:
    """Lock name (for RedisLock) of the one rebuild of `cache_key` allowed at a time."""
    return f"cache:{cache_key}"


def cache_root() -> str:
    """The prefix every cache key shares (the near cache tracks changes under it)."""
    return "cache:"


def cache(namespace: str, ident: str) -> str:
    """JSON bytes of a cached item (or the empty null marker); a hash {data, expire_at}
    for logically expiring entries. The hash tag covers namespace and id, so the entry
    and its version counter share a slot."""
    return f"{cache_root()}{{{namespace}:{ident}}}"


def cache_prefix(namespace: str) -> str:
    """What every entry key of one cache namespace starts with."""
    return f"{cache_root()}{{{namespace}:"


def cache_version(cache_key: str) -> str:
    """Counter bumped by every eviction of `cache_key`: a rebuild that loaded before the
    eviction must not store what it loaded. Outside `cache_root()`, so its bumps are not
    broadcast to every near cache; it keeps the entry's hash tag, so both share a slot."""
    return f"ver:{cache_key}"


def bloom(name: str) -> str:
    """Bitmap of a Bloom filter (its generation 0); every key of the filter shares its
    hash tag, so a switch is one MULTI on one slot."""
    return f"bloom:{{{name}}}"


def bloom_generation(bloom_key: str, generation: int) -> str:
    """Bitmap of a Bloom filter's `generation` (0: the filter's own key), built by a
    rebuild beside the current one (decision 490)."""
    return bloom_key if generation == 0 else f"{bloom_key}:g{generation}"


def bloom_pointer(bloom_key: str) -> str:
    """Hash naming a Bloom filter's generations, "<generation>:<capacity>": `current`
    (what readers check; absent: generation 0 at the configured capacity) and, during a
    rebuild, `building` (what writes reach too)."""
    return f"{bloom_key}:pointer"


def delay_queue(name: str, part: str) -> str:
    """Sorted sets of a delay queue: part "due" (score = due time, ms) or "leased"
    (score = lease expiry, ms). Both share the hash tag, for the claim script."""
    return f"delayq:{{{name}}}:{part}"


# --- read by the toolkit itself: the favourites sets ---------------------------------
# Written by the favourites app and read by the `saved` markers of toolkit/api/saved.py
# (decision 369), which imports no app: so these are built here (decision 457).


def favourites(user_id: int, kind: str) -> str:
    """Set of the ids of a user's favourites of one kind (`shop`, `blog`, `voucher`):
    mirrors the Favourite rows (favourites.services syncs it after commit). All of a
    user's kinds share the user's tag."""
    return f"fav:{{u{user_id}}}:{kind}"


def favourites_pattern() -> str:
    """SCAN pattern of every favourites set (maintenance only)."""
    return "fav:{u*}:*"


# Sign-in keys carry their user's bucket as hash tag {g<bucket>} (signin.buckets says
# which), so the sign script's two keys share a Cluster slot.
