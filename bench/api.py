"""The reads users make most, each against the bare Django view, same server, same run.

    DATABASE_URL=mysql://... .venv/bin/python bench/api.py [--rounds 3] [--duration 10s]
        [--connections 32] [--users 2000] [--only NAME,...]

Production settings under granian (2 workers x 4 threads), demo data, MariaDB when
DATABASE_URL names one (`make bench-api` starts a throwaway one). Every detail GET
rotates over all ids; every signed-in GET rotates over --users users' tokens, and those
users each follow three demo authors, hold a paid coupon, have 25 notifications and three
saved shops, so their feeds, "my vouchers", inboxes and favourites have something in them;
the first of them (up to 300) each own a demo shop, whose dashboard each asks as its owner.
Searches ask words of the demo's shops, notes and users, the search limit lifted (wrk sends
from one address).
Rounds alternate the bare view `/api/ping` and every endpoint; the table gives medians,
ratios to the bare view, and non-2xx counts (the run fails on any). Prints Markdown for
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import urllib.request
from pathlib import Path
from urllib.parse import urlencode

from harness import WRK_DIR, Server, WrkResult, manage, manage_output, median_result, run_wrk
from harness import server_env as production_env

CENTRE = (121.4737, 31.2304)  # People's Square, where the demo shops are
OWNERS = "owners"  # an endpoint's paths each signed in as its own shop's owner

# The bench users: the load-test phones of issue_tokens (100xxxxxxxx), each following
# three demo authors (the feed backfills their notes) and holding a paid free coupon.
SETUP = """
import random
from accounts.management.commands.issue_tokens import load_test_phones
from accounts.services import users_ensure
from blogs.models import Blog
from follows import services as follows
from favourites.services import favourite_save
from notifications.models import Kind, Notification
from notifications.services import notifications_add_many, notifications_mark_read
from shops.models import Shop
from vouchers.coupons import claims
from vouchers.models import Voucher
users = users_ensure(phones=load_test_phones({users}, staff=False))
authors = sorted(set(Blog.objects.values_list("user_id", flat=True)))
voucher, _ = Voucher.objects.get_or_create(
    title="bench coupon", defaults=dict(shop=Shop.objects.order_by("id").first(),
    pay_value=0, actual_value=500, per_user_limit=1))
rng = random.Random(7)
for user in users:
    for author in rng.sample(authors, 3):
        if author != user.id:
            follows.follow(user_id=user.id, target_id=author)
    try:
        claims.voucher_claim(user_id=user.id, voucher_id=voucher.id)
    except Exception:
        pass  # a run before this one claimed it
notes = list(Blog.objects.values_list("id", flat=True))
shops = list(Shop.objects.values_list("id", flat=True))
for user in users:  # three saved shops each: "my favourites" has a page to show
    for shop_id in rng.sample(shops, min(3, len(shops))):
        favourite_save(user_id=user.id, kind="shop", object_id=shop_id)
inbox = []
for user in users:  # told once: the dedup keys make a second run add nothing
    for i in range(25):
        actor = rng.choice(authors)
        if i % 2:
            inbox.append(Notification(recipient_id=user.id, kind=Kind.LIKED, actor_id=actor,
                                      blog_id=rng.choice(notes), dedup_key=f"bench:{{i}}"))
        else:
            inbox.append(Notification(recipient_id=user.id, kind=Kind.FOLLOWED, actor_id=actor,
                                      dedup_key=f"bench:{{i}}"))
notifications_add_many([n for n in inbox if n.actor_id != n.recipient_id])
for user in users[::2]:  # half of them have read their oldest ten
    oldest = Notification.objects.filter(recipient_id=user.id).order_by("id")
    notifications_mark_read(recipient_id=user.id, ids=oldest.values_list("id", flat=True)[:10])
print(len(users))
"""

# The first bench users each become the owner of a shop that has none (demo order), for
# the merchant dashboard; prints those shops' ids in the users' order, which is their
# tokens' order in issue_tokens's file. Run again, the same users keep the same shops.
OWNERS = """
from accounts.management.commands.issue_tokens import load_test_phones
from accounts.models import User
from shops.models import Shop, ShopStaff
phones = load_test_phones({count}, staff=False)
ids = dict(User.objects.filter(phone__in=phones).values_list("phone", "id"))
owner = ShopStaff.Role.OWNER
mine = dict(ShopStaff.objects.filter(user_id__in=ids.values(), role=owner)
            .values_list("user_id", "shop_id"))
owned = ShopStaff.objects.filter(role=owner).values_list("shop_id", flat=True)
free = iter(Shop.objects.exclude(pk__in=list(owned)).order_by("id").values_list("id", flat=True))
shops = []
for phone in phones:
    shop_id = mine.get(ids[phone]) or next(free, None)
    if shop_id is None:
        break
    ShopStaff.objects.update_or_create(shop_id=shop_id, user_id=ids[phone],
                                       defaults={{"role": owner}})
    shops.append(shop_id)
print(" ".join(map(str, shops)))
"""
OWNERS_MAX = 300  # dashboards rotated over (each its own shop's numbers)

IDS = """
from blogs.models import Blog
from shops.models import Shop, ShopType
print(" ".join(map(str, Shop.objects.values_list("id", flat=True))))
print(" ".join(map(str, Blog.objects.values_list("id", flat=True))))
print(" ".join(map(str, sorted(set(Blog.objects.values_list("user_id", flat=True))))))
print(" ".join(map(str, ShopType.objects.values_list("id", flat=True))))
"""


# Words the demo's shops, notes and users hold (seed_demo), alone and in pairs.
SEARCHES = {
    "shops": ["火锅", "咖啡", "馒头", "酸菜鱼", "静安寺", "烤肉", "面", "火锅 新天地"],
    "notes": ["火锅", "点心", "足疗", "吧台", "好吃", "周末", "咖啡 拿铁", "遛娃"],
    "users": ["小明", "吃货", "阿杰", "火锅", "小王", "妈妈", "Lily", "阿磊"],
}


def endpoints(
    shops: list[str], blogs: list[str], authors: list[str], types: list[str], owned: list[str]
):
    """name -> (paths, who): who is False (anonymous), True (the bench users, rotated) or
    OWNERS (path k as the owner of its shop: the k-th bench user)."""
    x, y = CENTRE
    points = [
        f"x={x + dx / 100:.4f}&y={y + dy / 100:.4f}" for dx in (-2, 0, 2) for dy in (-2, 0, 2)
    ]
    return {
        "shop detail `/api/shops/{id}`": ([f"/api/shops/{i}" for i in shops], False),
        "note detail `/api/blogs/{id}`": ([f"/api/blogs/{i}" for i in blogs], False),
        "activities `/api/vouchers/activities`": (
            ["/api/vouchers/activities", "/api/vouchers/activities?tab=upcoming"],
            False,
        ),
        "a city's activities `/api/vouchers/activities?city=hangzhou`": (
            ["/api/vouchers/activities?city=hangzhou"],
            False,
        ),
        "cities `/api/cities`": (["/api/cities"], False),
        "home page HTML `/`": (["/"], False),
        "feed `/api/feed` (signed in)": (["/api/feed"], True),
        "a shop's vouchers `/api/shops/{id}/vouchers`": (
            [f"/api/shops/{i}/vouchers" for i in shops],
            False,
        ),
        "me `/api/users/me` (signed in)": (["/api/users/me"], True),
        "a user's notes `/api/users/{id}/blogs`": (
            [f"/api/users/{i}/blogs" for i in authors],
            False,
        ),
        "my vouchers `/api/voucher-orders` (signed in)": (["/api/voucher-orders"], True),
        "shops by type near a point, page 1": (
            [f"/api/shops?type_id={t}&{p}" for t in types for p in points],
            False,
        ),
        "hot notes `/api/blogs/hot`": (["/api/blogs/hot"], False),
        "shops near a shop `/api/shops/{id}/nearby`": (
            [f"/api/shops/{i}/nearby" for i in shops],
            False,
        ),
        "a shop's reviews `/api/shops/{id}/reviews`": (
            [f"/api/shops/{i}/reviews" for i in shops],
            False,
        ),
        "a shop's reviews with photos `/api/shops/{id}/reviews?with_photos=true`": (
            [f"/api/shops/{i}/reviews?with_photos=true" for i in shops],
            False,
        ),
        "a shop's reviews most helpful first `/api/shops/{id}/reviews?sort=helpful`": (
            [f"/api/shops/{i}/reviews?sort=helpful" for i in shops],
            False,
        ),
        "followers `/api/users/{id}/followers`": (
            [f"/api/users/{i}/followers" for i in authors],
            False,
        ),
        "following `/api/users/{id}/following` (signed in)": (
            [f"/api/users/{i}/following" for i in authors],
            True,
        ),
        "notifications `/api/notifications` (signed in)": (["/api/notifications"], True),
        "unread count `/api/notifications/unread-count` (signed in)": (
            ["/api/notifications/unread-count"],
            True,
        ),
        "merchant dashboard `/api/merchant/shops/{id}/dashboard` (its owner)": (
            [f"/api/merchant/shops/{i}/dashboard" for i in owned],
            OWNERS,
        ),
        "my favourites `/api/favourites?kind=shop` (signed in)": (
            ["/api/favourites?kind=shop"],
            True,
        ),
        "rankings `/api/rankings` (by type, by district; signed in)": (
            [f"/api/rankings?type_id={t}" for t in types]
            + ["/api/rankings?" + urlencode({"area": a}) for a in ("静安寺", "人民广场", "新天地")],
            True,
        ),
        "guess you like `/api/recommendations` (signed in)": (
            ["/api/recommendations", f"/api/recommendations?{points[0]}"],
            True,
        ),
        **{
            f"search {kind} `/api/search?kind={kind}`": (
                ["/api/search?" + urlencode({"q": q, "kind": kind}) for q in words],
                False,
            )
            for kind, words in SEARCHES.items()
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", default="10s")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--users", type=int, default=2000)
    parser.add_argument("--only", help="comma-separated words: endpoints whose name has one")
    parser.add_argument("--port", type=int, default=8079)
    args = parser.parse_args()

    # The product as make run runs it: the sale on its own fsync'd Redis (scripts/bench.sh).
    sale_redis = os.environ.get("BENCH_SALE_REDIS_URL")
    env = production_env(
        # wrk sends from one address: the search limit (decision 279) would answer 429s.
        THROTTLE_SEARCH_IP="100000000/minute",
        **({"SECKILL_REDIS_URL": sale_redis} if sale_redis else {}),
    )
    manage("migrate", "--noinput", "-v0", env=env)
    manage("collectstatic", "--noinput", "-v0", env=env)
    manage("seed_demo", "--force", env=env)
    manage("load_shop_geo", "-v0", env=env)
    manage("preload_stock", env=env)
    manage("rebuild_search_index", "-v0", env=env)
    manage("shell", "-v0", "-c", SETUP.format(users=args.users), env=env)
    shops, blogs, authors, types = (
        line.split() for line in manage_output("shell", "-v0", "-c", IDS, env=env).splitlines()
    )
    owners = OWNERS.format(count=min(args.users, OWNERS_MAX))
    owned = manage_output("shell", "-v0", "-c", owners, env=env).split()
    work = Path(tempfile.mkdtemp(prefix="bench-api-"))
    tokens = work / "tokens.txt"
    manage("issue_tokens", "--count", str(args.users), "--out", str(tokens), env=env)
    # wrk's script takes path i % n and token i % n: with as many tokens as paths, each
    # dashboard is asked by its shop's owner.
    owner_tokens = work / "owner-tokens.txt"
    owner_tokens.write_text("".join(f"{t}\n" for t in tokens.read_text().split()[: len(owned)]))
    runs: dict[str, tuple[list[str], bool | str]] = {
        "bare Django JSON view `/api/ping`": (["/api/ping"], False)
    }
    runs |= endpoints(shops, blogs, authors, types, owned)
    if args.only:
        words = args.only.split(",")
        runs = {
            n: r for i, (n, r) in enumerate(runs.items()) if i == 0 or any(w in n for w in words)
        }
    scripts: dict[str, dict[str, str]] = {}
    for i, (name, (paths, signed_in)) in enumerate(runs.items()):
        paths_file = work / f"paths-{i}.txt"
        paths_file.write_text("\n".join(paths) + "\n")
        scripts[name] = {**os.environ, "PATHS_FILE": str(paths_file)}
        if signed_in:
            scripts[name]["TOKENS_FILE"] = str(owner_tokens if signed_in == OWNERS else tokens)

    results: dict[str, list[WrkResult]] = {name: [] for name in runs}
    with Server("granian", args.workers, args.port, env, args.threads) as server:
        first_token = tokens.read_text().split()[0]
        owners_tokens = owner_tokens.read_text().split()
        for paths, signed_in in runs.values():  # warm: every path once
            for k, path in enumerate(paths[:600]):
                token = owners_tokens[k] if signed_in == OWNERS else first_token
                headers = {"Authorization": f"Bearer {token}"} if signed_in else {}
                request = urllib.request.Request(f"{server.url}{path}", headers=headers)
                urllib.request.urlopen(request).read()
        lua = str(WRK_DIR / "paths.lua")
        for _ in range(args.rounds):
            for name in runs:
                results[name].append(
                    run_wrk(
                        server.url,
                        duration=args.duration,
                        connections=args.connections,
                        script=lua,
                        env=scripts[name],
                    )
                )
    report(args, results)


def report(args: argparse.Namespace, results: dict[str, list[WrkResult]]) -> None:
    medians = {name: median_result(rounds) for name, rounds in results.items()}
    baseline = next(iter(medians.values()))
    print(
        f"\ngranian {args.workers} x {args.threads}, production settings, "
        f"{os.environ.get('DATABASE_URL', 'sqlite').split(':')[0]}; wrk -t2 "
        f"-c{args.connections} -d{args.duration}, {args.rounds} rounds, medians\n"
    )
    print("| endpoint | req/s | x bare view | p50 ms | p99 ms | non-2xx |")
    print("|---|---|---|---|---|---|")
    for name, result in medians.items():
        ratio = result.requests_per_second / baseline.requests_per_second
        print(
            f"| {name} | {result.requests_per_second:.0f} | {ratio:.2f} | "
            f"{result.p50_ms:.2f} | {result.p99_ms:.2f} | {result.non_2xx + result.errors} |"
        )
    failures = sum(r.non_2xx + r.errors for r in medians.values())
    if failures:
        sys.exit(f"{failures} non-2xx responses or socket errors: the figures are not valid")


if __name__ == "__main__":
    main()
