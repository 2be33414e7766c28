"""Redis memory per user-facing item, for docs/scaling.md: what one session, one feed
inbox item, one follow, one month of sign-ins and one flash-sale buyer cost.

    .venv/bin/python bench/memory.py

`make bench-memory` starts the local Redis and runs it. Keys are written with the
project's own key names and encodings (user ids far above any real one), measured with
MEMORY USAGE, and deleted again. Prints Markdown for docs/scaling.md.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dianping.settings.dev")

import django

django.setup()

from django.conf import settings  # noqa: E402

from accounts import keys as accounts_keys  # noqa: E402
from blogs import keys as blogs_keys  # noqa: E402
from follows import keys as follows_keys  # noqa: E402
from signin import keys as signin_keys  # noqa: E402
from signin.buckets import bucket_of  # noqa: E402
from toolkit.redis.client import get_redis  # noqa: E402
from vouchers.sale import shard  # noqa: E402

BASE_USER = 9_000_000_000
SAMPLES = 200


def measure(name: str, per: str, build) -> tuple[str, str, float]:
    """Average MEMORY USAGE of SAMPLES keys made by `build(client, i) -> (key, items)`,
    per item (items = how many of `per` the key holds)."""
    client = get_redis()
    made, total_bytes, total_items = [], 0, 0
    try:
        for i in range(SAMPLES):
            key, items = build(client, i)
            made.append(key)
            total_bytes += client.memory_usage(key, samples=0)
            total_items += items
    finally:
        for key in made:
            client.delete(key)
    return name, per, total_bytes / total_items


def session(client, i):
    key = accounts_keys.login_token(secrets.token_urlsafe(32))
    user = {"id": BASE_USER + i, "nick_name": "user_" + secrets.token_hex(5), "icon": ""}
    client.set(key, json.dumps(user), ex=settings.AUTH_TOKEN_TTL)
    return key, 1


def inbox_of(size: int):
    """An inbox of `size` items: small ones are listpacks, big ones skiplists (Redis's
    zset-max-listpack-entries, 128 by default, decides)."""

    def build(client, i):
        key = blogs_keys.feed_inbox(BASE_USER + i)
        now_ms = 1_795_000_000_000
        client.zadd(key, {str(50_000_000 + i * size + n): now_ms + n * 1000 for n in range(size)})
        return key, size

    return build


def follows(client, i):
    key = follows_keys.following(BASE_USER + i)
    client.sadd(key, *[1_000_000 + n * 7919 for n in range(50)])  # ids of a 10M-user site
    return key, 50


def sign_month(client, i):
    key = signin_keys.sign_month(bucket_of(BASE_USER + i), BASE_USER + i, "202611")
    for day in range(0, 30, 2):
        client.setbit(key, day, 1)
    return key, 1


def buyers(client, i):
    key = shard.buyers_key(900_000 + i)
    orders = {str(BASE_USER + n): f"{60_000_000 + n}:{n << 4}" for n in range(1000)}
    client.hset(key, mapping=orders)
    return key, 1000


def main() -> None:
    rows = [
        measure("login session (token → public user, 30 min TTL)", "session", session),
        measure(
            f"feed inbox, full ({settings.FEED_INBOX_MAX} items)",
            "item",
            inbox_of(settings.FEED_INBOX_MAX),
        ),
        measure("feed inbox of 80 items", "item", inbox_of(80)),
        measure("following set (50 users followed)", "follow", follows),
        measure("sign-in bitmap, one month", "user-month", sign_month),
        measure("flash-sale buyers hash (1,000 buyers)", "buyer", buyers),
    ]
    print("| what | bytes per |")
    print("|---|---|")
    for name, per, size in rows:
        print(f"| {name} | {size:,.0f} per {per} |")


if __name__ == "__main__":
    main()
