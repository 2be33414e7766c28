"""A realistic search corpus, deterministic: run inside Django (`manage.py shell -c
"exec(open('bench/search_corpus.py').read())"`, SEARCH_SHOPS/NOTES/USERS in the
environment). Rows are bulk-inserted (past the services); rebuild_search_index indexes them.
Prints the query words a benchmark should use, one per line."""

# ruff: noqa: E501
from __future__ import annotations

import os
import random

from django.db import transaction

from accounts.models import User, UserInfo
from blogs.models import Blog
from shops.models import Shop, ShopType

SHOPS = int(os.environ.get("SEARCH_SHOPS", "2000"))
NOTES = int(os.environ.get("SEARCH_NOTES", "10000"))
USERS = int(os.environ.get("SEARCH_USERS", "1000"))
BRANDS = [
    "海底捞",
    "小杨生煎",
    "南翔",
    "外婆家",
    "西贝",
    "鼎泰丰",
    "太二",
    "绿茶",
    "点都德",
    "星巴克",
    "瑞幸",
    "喜茶",
    "奈雪",
    "麦当劳",
    "肯德基",
    "必胜客",
    "呷哺",
    "巴奴",
    "老盛昌",
    "蔡澜",
]
DISHES = [
    "火锅",
    "咖啡",
    "生煎",
    "小笼包",
    "酸菜鱼",
    "烤肉",
    "拉面",
    "奶茶",
    "甜品",
    "烧烤",
    "点心",
    "牛排",
    "寿司",
    "披萨",
    "汉堡",
    "面包",
    "蛋糕",
    "羊肉串",
    "麻辣烫",
    "煲仔饭",
]
AREAS = [
    "人民广场",
    "南京西路",
    "静安寺",
    "陆家嘴",
    "徐家汇",
    "新天地",
    "淮海中路",
    "外滩",
    "五角场",
    "中山公园",
    "打浦桥",
    "北外滩",
    "世纪公园",
    "虹口足球场",
]
ROADS = [
    "西藏中路",
    "愚园路",
    "陆家嘴环路",
    "漕溪北路",
    "马当路",
    "淮海中路",
    "中山东一路",
    "邯郸路",
]
PHRASES = [
    "味道很好",
    "服务周到",
    "环境安静",
    "排队有点久",
    "性价比高",
    "适合聚会",
    "分量很足",
    "推荐招牌菜",
    "价格实惠",
    "装修很有格调",
    "周末人很多",
    "适合带孩子",
    "停车方便",
    "老板很热情",
    "下次还会再来",
    "口味偏甜",
    "辣度刚好",
    "上菜很快",
    "有包厢",
    "甜品惊艳",
]
NICKS = [
    "吃货",
    "探店",
    "达人",
    "美食家",
    "小仙女",
    "老饕",
    "打卡王",
    "咖啡控",
    "火锅少女",
    "甜品党",
]


def build() -> list[str]:
    rng = random.Random(24)
    with transaction.atomic():
        types = [
            ShopType.objects.get_or_create(name=f"搜索基准{i}", defaults={"sort": 100 + i})[0]
            for i in range(5)
        ]
        shops = [
            Shop(name=f"{rng.choice(BRANDS)}{rng.choice(DISHES)}({area}店)",
                 type=rng.choice(types), area=area, address=f"上海市{rng.choice(ROADS)}{rng.randint(1, 2000)}号",
                 x=121.47 + rng.uniform(-0.08, 0.08), y=31.23 + rng.uniform(-0.06, 0.06),
                 avg_price=rng.randint(20, 400), score=rng.randint(20, 50), comments=rng.randint(0, 5000),
                 sold=rng.randint(0, 5000))
            for area in (rng.choice(AREAS) for _ in range(SHOPS))
        ]  # fmt: skip
        Shop.objects.bulk_create(shops, batch_size=1000)
        first = User.objects.count()
        users = [User(username=f"search-bench-{first + i}", phone=None,
                      nick_name=f"{rng.choice(DISHES)}{rng.choice(NICKS)}{i}")
                 for i in range(USERS)]  # fmt: skip
        User.objects.bulk_create(users, batch_size=1000)
        users = list(User.objects.filter(username__startswith="search-bench-"))
        UserInfo.objects.bulk_create(
            [UserInfo(user=u, fans=rng.randint(0, 1000), introduce=f"爱吃{rng.choice(DISHES)}")
             for u in users], batch_size=1000, ignore_conflicts=True,
        )  # fmt: skip
        shop_ids = list(Shop.objects.values_list("id", flat=True))
        Blog.objects.bulk_create(
            [Blog(user=rng.choice(users), shop_id=rng.choice(shop_ids),
                  title=f"{rng.choice(BRANDS)}{rng.choice(DISHES)}｜{rng.choice(PHRASES)}",
                  content="，".join(rng.choice(PHRASES) for _ in range(rng.randint(8, 30)))
                  + f"。招牌{rng.choice(DISHES)}和{rng.choice(DISHES)}都不错。",
                  liked=rng.randint(0, 500), pushed_at=None)
             for _ in range(NOTES)], batch_size=1000,
        )  # fmt: skip
    return DISHES + AREAS + BRANDS


print("\n".join(build()))
