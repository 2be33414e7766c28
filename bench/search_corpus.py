"""A realistic search corpus, deterministic: run inside Django (`manage.py shell -c
"exec(open('bench/search_corpus.py').read())"`, SEARCH_SHOPS/NOTES/USERS in the
environment). Rows are bulk-inserted (past the services); rebuild_search_index indexes them.
Prints the query words a benchmark should use, one per line."""

from __future__ import annotations

import os
import random
import sys

from django.db import transaction

from accounts.models import User, UserInfo
from blogs.models import Blog
from shops import cities
from shops.models import Shop, ShopType

sys.path.insert(0, "bench")  # run from the project root by manage.py shell
from search_corpus_words import AREAS, BRANDS, DISHES, NICKS, PHRASES, ROADS

SHOPS = int(os.environ.get("SEARCH_SHOPS", "2000"))
NOTES = int(os.environ.get("SEARCH_NOTES", "10000"))
USERS = int(os.environ.get("SEARCH_USERS", "1000"))


def build() -> list[str]:
    rng = random.Random(24)
    with transaction.atomic():
        types = [
            ShopType.objects.get_or_create(name=f"搜索基准{i}", defaults={"sort": 100 + i})[0]
            for i in range(5)
        ]
        city_id = cities.default_city_id()  # the migrated database's Shanghai
        shops = [
            Shop(
                name=f"{rng.choice(BRANDS)}{rng.choice(DISHES)}({area}店)",
                type=rng.choice(types),
                city_id=city_id,
                area=area,
                address=f"上海市{rng.choice(ROADS)}{rng.randint(1, 2000)}号",
                x=121.47 + rng.uniform(-0.08, 0.08),
                y=31.23 + rng.uniform(-0.06, 0.06),
                avg_price=rng.randint(20, 400),
                score=rng.randint(20, 50),
                comments=rng.randint(0, 5000),
                sold=rng.randint(0, 5000),
            )
            for area in (rng.choice(AREAS) for _ in range(SHOPS))
        ]
        Shop.objects.bulk_create(shops, batch_size=1000)
        first = User.objects.count()
        users = [
            User(
                username=f"search-bench-{first + i}",
                phone=None,
                nick_name=f"{rng.choice(DISHES)}{rng.choice(NICKS)}{i}",
            )
            for i in range(USERS)
        ]
        User.objects.bulk_create(users, batch_size=1000)
        users = list(User.objects.filter(username__startswith="search-bench-"))
        UserInfo.objects.bulk_create(
            [
                UserInfo(user=u, fans=rng.randint(0, 1000), introduce=f"爱吃{rng.choice(DISHES)}")
                for u in users
            ],
            batch_size=1000,
            ignore_conflicts=True,
        )
        shop_ids = list(Shop.objects.values_list("id", flat=True))
        Blog.objects.bulk_create(
            [
                Blog(
                    user=rng.choice(users),
                    shop_id=rng.choice(shop_ids),
                    title=f"{rng.choice(BRANDS)}{rng.choice(DISHES)}｜{rng.choice(PHRASES)}",
                    content="，".join(rng.choice(PHRASES) for _ in range(rng.randint(8, 30)))
                    + f"。招牌{rng.choice(DISHES)}和{rng.choice(DISHES)}都不错。",
                    liked=rng.randint(0, 500),
                    pushed_at=None,
                )
                for _ in range(NOTES)
            ],
            batch_size=1000,
        )
    return DISHES + AREAS + BRANDS


print("\n".join(build()))
