"""Every Redis key name the project uses is built here, and documented in docs/redis-keys.md.

Keys touched together by one Lua script share a hash tag `{...}` so they land in
one Redis Cluster slot. Functions take already-validated identifiers.
"""

from __future__ import annotations

# --- toolkit -----------------------------------------------------------------------


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
    without an error; /metrics reads it (dianping.tasks.task_succeeded)."""
    return f"ops:task-ok:{name}"


def db_identity() -> str:
    """The identity of the database this Redis's data belongs to (dianping.identity)."""
    return "ops:db-identity"


# --- accounts ----------------------------------------------------------------------


def login_code(phone: str) -> str:
    """Hash {digest, attempts} of the live SMS login code for a phone."""
    return f"login:code:{phone}"


def login_token(token: str) -> str:
    """JSON of the public user data for a login token; TTL refreshed on every request."""
    return f"login:token:{token}"


def user_tokens(user_id: int) -> str:
    """Set of a user's login tokens (pruned at login), so all can be revoked at once."""
    return f"login:user-tokens:{user_id}"


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
    """Bitmap of a Bloom filter; its rebuild key shares the hash tag for an atomic RENAME."""
    return f"bloom:{{{name}}}"


def geo_shops(city_id: int, type_id: int) -> str:
    """GEO set of the shop ids of one type in one city (decision 393); the rebuild key
    shares its hash tag, and the sets of a city spread over the slots like those of types."""
    return f"geo:shops:{{{city_id}:{type_id}}}"


def geo_shops_pattern() -> str:
    """SCAN pattern matching every GEO set of shops (for removing the sets nothing fills)."""
    return "geo:shops:{*}"


def geo_shops_per_type_pattern() -> str:
    """SCAN pattern of the per-type GEO sets of before cities, which the rebuild removes."""
    return "geo:shop-type:{*}"


def rankings(city_id: int) -> str:
    """Hash of a city's weekly rankings (rankings.services): field `meta` and one field per
    list (`type:<id>`, `area:<district>`), each as rankings.stored writes it; replaced at once by a
    RENAME of `rankings_next`, which shares its tag."""
    return f"rank:{{c{city_id}}}"


def rankings_next(city_id: int) -> str:
    """The city's rankings being written, renamed onto `rankings` when complete."""
    return f"rank:{{c{city_id}}}:next"


def sold_changed() -> str:
    """Set of voucher ids whose paid coupons changed since their shops' `sold` was last
    counted (vouchers.coupons.sold)."""
    return "sold:changed-vouchers"


def visits_uv(subject: str, day: str) -> str:
    """HyperLogLog of distinct visitors of `subject` ("site" or "shop:<id>") on a local day."""
    return f"uv:{subject}:{day}"


def visitor_ids(day: str, address: str) -> str:
    """Set of the anonymous visitor ids seen from one client address (a hash of it) on a
    local day: at most ANON_VISITORS_PER_ADDRESS of them count as visitors of their own."""
    return f"uv:anon-ids:{day}:{address}"


def visits_pv(subject: str, day: str) -> str:
    """Counter of page views of `subject` on a local day (YYYYMMDD in TIME_ZONE)."""
    return f"pv:{subject}:{day}"


def delay_queue(name: str, part: str) -> str:
    """Sorted sets of a delay queue: part "due" (score = due time, ms) or "leased"
    (score = lease expiry, ms). Both share the hash tag, for the claim script."""
    return f"delayq:{{{name}}}:{part}"


# --- vouchers / flash sale ----------------------------------------------------------
# Everything one seckill script touches carries its shard's hash tag {s<shard>}, so
# stock, buyers and the order stream of a voucher live in one Cluster slot.


def seckill_stock(shard: int, voucher_id: int) -> str:
    """Units of a seckill voucher left in Redis (the sale's source of truth while it runs)."""
    return f"seckill:{{s{shard}}}:stock:{voucher_id}"


def seckill_buyers(shard: int, voucher_id: int) -> str:
    """Hash user id -> order ("<seconds>:<low>") of a seckill voucher's buyers (one each)."""
    return f"seckill:{{s{shard}}}:buyers:{voucher_id}"


def seckill_orders(shard: int) -> str:
    """Stream of accepted orders of one shard, drained into the database by Celery."""
    return f"seckill:{{s{shard}}}:orders"


def seckill_dead_letters(shard: int) -> str:
    """Stream of orders that kept failing to persist: kept for operators, never dropped."""
    return f"seckill:{{s{shard}}}:dead"


def seckill_pending(shard: int) -> str:
    """Hash order-id -> "user:voucher" of accepted orders not yet in the database."""
    return f"seckill:{{s{shard}}}:pending"


def seckill_id_counter(shard: int, day: str) -> str:
    """Per-shard, per-UTC-day counter behind order ids made inside the seckill script."""
    return f"seckill:{{s{shard}}}:id:{day}"


def seckill_failures(shard: int) -> str:
    """Hash stream-entry-id -> how often persisting it failed on its own account."""
    return f"seckill:{{s{shard}}}:failures"


def seckill_lag(shard: int) -> str:
    """Hash: histogram of accept-to-persist lag of a shard's drained orders (fields
    le_<ms>, le_inf); the whole sale's is the sum over the shards."""
    return f"seckill:{{s{shard}}}:lag"


def seckill_live(shard: int) -> str:
    """The run id of the Redis process that verified the shard against the database: a
    restart, a failover or a restored backup makes it stale (vouchers/sale/heal.py)."""
    return f"seckill:{{s{shard}}}:live"


def seckill_transit(shard: int) -> str:
    """Hash move id -> "<voucher>:<to shard>:<units>:<ms>" of stock this shard gave to
    another bucket of the same sale and that bucket has not confirmed yet (buckets.py)."""
    return f"seckill:{{s{shard}}}:transit"


def seckill_moves(shard: int) -> str:
    """Hash move id -> ms of the stock moves this shard received: a move is applied once."""
    return f"seckill:{{s{shard}}}:moves"


def seckill_funnel(shard: int, user_id: int) -> str:
    """A user's flash-sale funnel, in the shard's slot so the seckill script can check it."""
    return f"{seckill_funnel_prefix(shard)}{user_id}"


def seckill_funnel_prefix(shard: int) -> str:
    """What the seckill script completes with the user id it reads from a token."""
    return f"seckill:{{s{shard}}}:funnel:"


# --- blogs -------------------------------------------------------------------------


def blog_likes(blog_id: int) -> str:
    """Sorted set of a blog's likers: user id scored by like time (ms). Also read by the
    notifications' `liked` task."""
    return f"blog:{{b{blog_id}}}:likes"


def blog_likes_version(blog_id: int) -> str:
    """Counter bumped by every like change; orders the `liked` count writes to the DB."""
    return f"blog:{{b{blog_id}}}:likes-ver"


def blog_helpful(blog_id: int) -> str:
    """Sorted set of the readers who found a review helpful: user id scored by vote time
    (ms)."""
    return f"blog:{{b{blog_id}}}:helpful"


def blog_helpful_version(blog_id: int) -> str:
    """Counter bumped by every helpful vote's change; orders the `helpful` count writes."""
    return f"blog:{{b{blog_id}}}:helpful-ver"


def user_blog_page(user_id: int, page: int) -> str:
    """Hash {v: the user's version it was built at, data: JSON} of one cached page of a
    user's blogs (random TTL, extended on hits)."""
    return f"blog:{{u{user_id}}}:page:{page}"


def user_blog_pages(user_id: int) -> str:
    """Set of the page numbers of a user's blogs that were cached (what a rebuild visits)."""
    return f"blog:{{u{user_id}}}:pages"


def user_blog_count(user_id: int) -> str:
    """A user's cached blog count."""
    return f"blog:{{u{user_id}}}:count"


def user_blog_version(user_id: int) -> str:
    """Bumped after every committed blog change of a user: a page built from an older
    read is never stored."""
    return f"blog:{{u{user_id}}}:ver"


# --- follows and the feed -------------------------------------------------------------


def following(user_id: int) -> str:
    """Set of the ids a user follows (mirrors the Follow rows)."""
    return f"follow:{{u{user_id}}}:following"


def following_pattern() -> str:
    """SCAN pattern of every `following` set (maintenance only)."""
    return "follow:{u*}:following"


def favourites(user_id: int, kind: str) -> str:
    """Set of the ids of a user's favourites of one kind (`shop`, `blog`, `voucher`):
    mirrors the Favourite rows (favourites.services syncs it after commit). All of a
    user's kinds share the user's tag."""
    return f"fav:{{u{user_id}}}:{kind}"


def favourites_pattern() -> str:
    """SCAN pattern of every favourites set (maintenance only)."""
    return "fav:{u*}:*"


def favourites_first_pages(user_id: int) -> str:
    """Hash of a user's first page of "my favourites" per kind (field `<kind>`) and each
    kind's generation (field `g:<kind>`, rewritten by every sync of a favourite of that
    kind): favourites.pages. Shares the user's tag with the favourites sets."""
    return f"favpage:{{u{user_id}}}"


def feed_inbox(user_id: int) -> str:
    """Sorted set of blog ids pushed to a user, scored by the blog's time (ms); bounded.
    Shares the user's tag with `following`, so a push checks and writes in one script."""
    return f"feed:{{u{user_id}}}"


def feed_pull_authors() -> str:
    """Set of the authors who ever published a blog that was not pushed (they had more
    than FEED_PUSH_MAX_FOLLOWERS followers then): readers pull those authors' blogs."""
    return "feed:pull-authors"


# --- notifications -----------------------------------------------------------------


def unread_count(user_id: int) -> str:
    """A user's count of unread notifications, cached from the rows (decision 303); its
    version counter is `cache_version` of this key, which shares its hash tag."""
    return f"notify:{{u{user_id}}}:unread"


def notify_channel(user_id: int) -> str:
    """The sharded pub/sub channel (SPUBLISH) that pokes a user's open notification
    streams after a change to their unread rows (decision 385); it shares the unread
    count's hash tag, so the eviction and the poke go to one node in order."""
    return f"notify:{{u{user_id}}}:live"


def stream_ticket(ticket: str) -> str:
    """The login token a stream ticket was issued for: spent by the stream that opens
    with it (GETDEL), or gone after its TTL (decision 387)."""
    return f"notify:ticket:{ticket}"


def open_streams() -> str:
    """Hash {stream process: its open notification streams}, as each process last
    reported them (notifications.metrics); `stream_processes_seen` shares its hash tag."""
    return "notify:{streams}:open"


def stream_processes_seen() -> str:
    """Sorted set {stream process: its last report, unix seconds}: a process not heard
    from lately is left out of the gauge and removed."""
    return "notify:{streams}:seen"


# --- sign-in -----------------------------------------------------------------------


# Sign-in keys carry their user's bucket as hash tag {g<bucket>} (signin.buckets says
# which), so the sign script's two keys share a Cluster slot.


def sign_month(bucket: int, user_id: int, month: str) -> str:
    """Bitmap of a user's sign-ins in one month (`month` is YYYYMM, local time): bit
    offset d - 1 is day d. `bucket` is the user's (signin.buckets.bucket_of)."""
    return f"sign:{{g{bucket}}}:{user_id}:{month}"


def sign_daily_counts(bucket: int) -> str:
    """Hash YYYYMMDD -> how many users of one bucket signed that day, counted as sign-ins
    happen (the day's total is the sum over the buckets)."""
    return f"sign:{{g{bucket}}}:daily-counts"


# --- recommendations ("guess you like") ---------------------------------------------


def recs_history(user_id: int) -> str:
    """Sorted set: the shops a user last interacted with (saved, rated, liked a review
    of) -> time (ms); the newest `recommendations.model.HISTORY` kept."""
    return f"recs:hist:{{u{user_id}}}"


def recs_rated(user_id: int) -> str:
    """Set of the shops a user rated (mirrors their ShopRating rows): never suggested."""
    return f"recs:rated:{{u{user_id}}}"


def recs_counts(shop_id: int) -> str:
    """Hash: a shop's co-occurrence count with each of its kept neighbours."""
    return f"recs:co:{{s{shop_id}}}"


def recs_neighbours(shop_id: int) -> str:
    """Sorted set: a shop's strongest neighbours -> weight (cosine-like); shares the
    shop's tag with its counts, so one script changes both."""
    return f"recs:nb:{{s{shop_id}}}"


def recs_popularity() -> str:
    """Sorted set: shop -> how many users interacted with it (the weights' norm)."""
    return "recs:pop"


def recs_pattern() -> str:
    """SCAN pattern of every recommendations key (the rebuild deletes them)."""
    return "recs:*"


# --- merchants ---------------------------------------------------------------------
# A shop's dashboard numbers that no longer change (merchants/dashboard_cache.py); the
# keys of a shop share its tag {d<shop_id>}, for the store script.


def dashboard_days(shop_id: int) -> str:
    """Hash YYYY-MM-DD -> "claims,sales,redemptions" of a shop's closed local days."""
    return f"dashboard:{{d{shop_id}}}:days"


def dashboard_ratings(shop_id: int) -> str:
    """Hash YYYY-MM-DD -> "reviews,stars" (how many, their stars summed) of the reviews
    written on each of a shop's closed local days: its weekly rating trend's parts."""
    return f"dashboard:{{d{shop_id}}}:ratings"


def dashboard_version(shop_id: int) -> str:
    """Counter bumped by every eviction from a shop's dashboard hashes: numbers loaded
    before it moved are not stored."""
    return f"dashboard:{{d{shop_id}}}:ver"
