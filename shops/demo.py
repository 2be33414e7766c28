"""Demo shop types, ~560 shops scattered around central Shanghai and a handful in Hangzhou,
the second city (decision 398), deterministic."""

from __future__ import annotations

import random

from django.db import transaction

from pictures.demo_pictures import demo_picture

from . import hours as opening_hours
from . import services
from .caches import shop_cache
from .models import City, Shop, ShopType

CITY_CENTRE = (121.4737, 31.2304)  # People's Square, Shanghai (longitude, latitude)

# The demo's cities: (code, name, English name, centre longitude, latitude, sort). Shanghai
# is the one the cities migration made; Hangzhou's centre is Wulin Square.
CITIES = [
    ("shanghai", "上海", "Shanghai", *CITY_CENTRE, 1),
    ("hangzhou", "杭州", "Hangzhou", 120.1551, 30.2741, 2),
]
SECOND_CITY = "hangzhou"
# Hangzhou's shops, a few of several types: (brand, type, district, address, longitude,
# latitude), each within 4 km of the centre.
SECOND_CITY_SHOPS = [
    ("楼外楼", "美食", "湖滨", "杭州市孤山路30号", 120.1496, 30.2561),
    ("知味观", "美食", "武林", "杭州市仁和路83号", 120.1642, 30.2559),
    ("新白鹿", "美食", "武林", "杭州市延安路262号", 120.1657, 30.2702),
    ("弄堂里", "美食", "黄龙", "杭州市曙光路118号", 120.1420, 30.2731),
    ("纯K", "KTV", "武林", "杭州市体育场路218号", 120.1637, 30.2758),
    ("麦乐迪", "KTV", "湖滨", "杭州市东坡路7号", 120.1633, 30.2594),
    ("乐刻运动", "健身运动", "黄龙", "杭州市天目山路160号", 120.1440, 30.2770),
    ("大渔足道", "按摩·足疗", "武林", "杭州市中山北路310号", 120.1651, 30.2791),
    ("酒球会", "酒吧", "湖滨", "杭州市南山路188号", 120.1618, 30.2470),
    ("NailsBar", "美睫·美甲", "湖滨", "杭州市延安路98号", 120.1672, 30.2577),
]  # fmt: skip

# (name, sort, brands, price range in yuan, opening hours, how many shops)
TYPES = [
    ("美食", 1, ["小杨生煎", "老盛昌", "南翔馒头店", "海底捞火锅", "外婆家", "西贝莜面村",
               "鼎泰丰", "新荣记", "一笼小确幸", "费大厨辣椒炒肉", "太二酸菜鱼", "绿茶餐厅",
               "点都德", "蔡澜港式点心", "莆田餐厅"], (20, 300), "10:00-22:00", 200),
    ("KTV", 2, ["纯K", "钱柜KTV", "好乐迪", "星聚会KTV", "K歌之王", "麦乐迪"], (60, 200), "12:00-02:00", 40),
    ("丽人·美发", 3, ["永琪美容美发", "文峰美发", "审美造型", "椰子造型", "剪艺沙龙", "Tony造型"],
     (50, 500), "10:00-21:00", 40),
    ("健身运动", 4, ["乐刻运动", "超级猩猩", "威尔士健身", "一兆韦德", "Keep Land", "舒适堡"],
     (30, 150), "06:00-23:00", 40),
    ("按摩·足疗", 5, ["悦足堂", "大渔足道", "御足坊", "禅悦足道", "小城故事足浴", "康骏会馆"],
     (80, 300), "11:00-02:00", 40),
    ("美容SPA", 6, ["思妍丽", "美丽田园", "馥颜SPA", "颐和阁", "花漾美容", "静享SPA"],
     (200, 1000), "10:00-22:00", 40),
    ("亲子游乐", 7, ["奈尔宝家庭中心", "淘气堡", "Kidsland", "宝贝王乐园", "小小运动馆", "Playtime乐园"],
     (80, 250), "09:30-20:30", 40),
    ("酒吧", 8, ["Bar Rouge", "Speak Low", "The Nest", "Flask", "Long Bar", "Senator Saloon"],
     (100, 400), "18:00-02:00", 40),
    ("轰趴馆", 9, ["嗨皮轰趴馆", "聚点轰趴", "Party Home", "轰趴猫", "星期八轰趴", "欢乐派对馆"],
     (100, 300), "10:00-24:00", 40),
    ("美睫·美甲", 10, ["NailsBar", "美甲小铺", "指尖艺术", "Lash Studio", "甲油胶工作室", "花间美甲"],
     (80, 400), "10:00-21:30", 40),
]  # fmt: skip

# What a meal costs a head at the food brands, in yuan (low, high): a banquet house is not
# priced like a dumpling stall. Other types' brands share their type's range.
BRAND_PRICES = {
    "小杨生煎": (20, 35), "老盛昌": (15, 30), "南翔馒头店": (40, 80), "海底捞火锅": (110, 150),
    "外婆家": (50, 80), "西贝莜面村": (80, 120), "鼎泰丰": (120, 180), "新荣记": (600, 1000),
    "一笼小确幸": (30, 50), "费大厨辣椒炒肉": (60, 90), "太二酸菜鱼": (70, 100),
    "绿茶餐厅": (50, 80), "点都德": (70, 110), "蔡澜港式点心": (60, 100), "莆田餐厅": (120, 180),
    "楼外楼": (150, 250), "知味观": (50, 90), "新白鹿": (50, 80), "弄堂里": (60, 100),
}  # fmt: skip


def brand_price(brand: str, draw: int, low: int, high: int) -> int:
    """`draw`, drawn from the type's range (low, high), moved into the brand's own range:
    the same draws as before, so every shop keeps its place and every other field."""
    if brand not in BRAND_PRICES or high == low:
        return draw
    brand_low, brand_high = BRAND_PRICES[brand]
    return brand_low + (draw - low) * (brand_high - brand_low) // (high - low)


# The categories in English (ShopType.name_en): the product's words, translated; the
# shops' own names and addresses are what merchants wrote, and stay as written.
ENGLISH_TYPES = {
    "美食": "Food",
    "KTV": "KTV",
    "丽人·美发": "Hair salons",
    "健身运动": "Fitness",
    "按摩·足疗": "Massage",
    "美容SPA": "Beauty & spa",
    "亲子游乐": "Family fun",
    "酒吧": "Bars",
    "轰趴馆": "Party houses",
    "美睫·美甲": "Lashes & nails",
}

# Business districts with their real centres (longitude, latitude).
AREAS = [
    ("人民广场", 121.4737, 31.2304, "西藏中路"), ("南京西路", 121.4590, 31.2290, "南京西路"),
    ("静安寺", 121.4456, 31.2235, "愚园路"), ("陆家嘴", 121.5055, 31.2397, "陆家嘴环路"),
    ("徐家汇", 121.4365, 31.1955, "漕溪北路"), ("新天地", 121.4751, 31.2192, "马当路"),
    ("淮海中路", 121.4628, 31.2185, "淮海中路"), ("外滩", 121.4903, 31.2400, "中山东一路"),
    ("五角场", 121.5140, 31.3010, "邯郸路"), ("中山公园", 121.4170, 31.2210, "长宁路"),
    ("打浦桥", 121.4680, 31.2070, "徐家汇路"), ("北外滩", 121.4970, 31.2510, "东大名路"),
    ("世纪公园", 121.5510, 31.2150, "锦绣路"), ("虹口足球场", 121.4800, 31.2710, "东江湾路"),
]  # fmt: skip

_METRES_PER_DEGREE_LAT = 111_320


def branch_name(brand: str, area: str) -> str:
    """A demo shop's name: its brand and district, as "小杨生煎(静安店)"."""
    return f"{brand}({area}店)"


def demo_hours(text: str) -> dict:
    """A type's opening hours ("12:00-02:00") as structured hours, every day alike: KTV, bars
    and massage run past midnight, party houses until 24:00."""
    start, end = text.split("-")
    return opening_hours.validate({"weekly": {day: [[start, end]] for day in opening_hours.DAYS}})


def seed_cities() -> dict[str, City]:
    """The demo's cities, by code (created when missing; an operator's edits are kept)."""
    cities = {}
    for code, name, english, x, y, sort in CITIES:
        cities[code], _ = City.objects.get_or_create(
            code=code, defaults={"name": name, "name_en": english, "x": x, "y": y, "sort": sort}
        )
    return cities


def _demo_shops(types: dict[str, ShopType], city: City) -> list[Shop]:
    rng = random.Random(2026)
    shops = []
    for name, sort, brands, (low, high), hours, count in TYPES:
        combos = [(brand, area) for brand in brands for area in AREAS]
        for n, (brand, (area, lon, lat, street)) in enumerate(rng.sample(combos, count)):
            # Scatter within about a kilometre of the district centre.
            dy, dx = rng.gauss(0, 450), rng.gauss(0, 450)
            shops.append(
                Shop(
                    name=branch_name(brand, area),
                    type=types[name],
                    city=city,
                    area=area,
                    address=f"上海市{street}{rng.randint(1, 1999)}号",
                    x=round(lon + dx / (_METRES_PER_DEGREE_LAT * 0.856), 6),  # cos(31.2°)
                    y=round(lat + dy / _METRES_PER_DEGREE_LAT, 6),
                    avg_price=brand_price(brand, rng.randint(low, high), low, high),
                    open_hours=hours,
                    hours=demo_hours(hours),
                    images=[_shop_picture(sort, n)],
                )
            )
    return shops


def _second_city_shops(types: dict[str, ShopType], city: City) -> list[Shop]:
    rng = random.Random(2027)
    sorts = {name: sort for name, sort, *_ in TYPES}
    shops = []
    for n, (brand, kind, area, address, x, y) in enumerate(SECOND_CITY_SHOPS):
        (low, high), hours = next((t[3], t[4]) for t in TYPES if t[0] == kind)
        shops.append(
            Shop(
                name=branch_name(brand, area),
                type=types[kind],
                city=city,
                area=area,
                address=address,
                x=x,
                y=y,
                avg_price=brand_price(brand, rng.randint(low, high), low, high),
                open_hours=hours,
                hours=demo_hours(hours),
                images=[_shop_picture(sorts[kind], n)],
            )
        )
    return shops


def _shop_picture(type_sort: int, n: int) -> str:
    """One of four pictures per shop type (drawn once, shared by its shops)."""
    return demo_picture(f"shop-{type_sort}-{n % 4}")


def seed_shops() -> tuple[int, int]:
    """Create the demo types and shops that are missing; returns (types, shops) in the DB."""
    with transaction.atomic():
        cities = seed_cities()
        types = {}
        for name, sort, *_ in TYPES:
            types[name], _ = ShopType.objects.get_or_create(
                name=name, defaults={"sort": sort, "name_en": ENGLISH_TYPES[name]}
            )
        # Types seeded before they had English names get theirs (an operator's is kept).
        for name, english in ENGLISH_TYPES.items():
            ShopType.objects.filter(name=name, name_en="").update(name_en=english)
        demo = {
            shop.name: shop
            for shop in [
                *_demo_shops(types, cities["shanghai"]),
                *_second_city_shops(types, cities[SECOND_CITY]),
            ]
        }
        existing = {shop.name: shop for shop in Shop.objects.only("id", "name", "images", "hours")}
        fresh = [shop for name, shop in demo.items() if name not in existing]
        Shop.objects.bulk_create(fresh, batch_size=500)
        # Demo shops seeded before they had pictures get theirs (a picture set by an
        # operator since is kept).
        bare = [shop for name, shop in existing.items() if name in demo and not shop.images]
        for shop in bare:
            shop.images = demo[shop.name].images
        Shop.objects.bulk_update(bare, ["images"], batch_size=500)
        # And those seeded before structured hours get theirs (an operator's are kept).
        unscheduled = [s for name, s in existing.items() if name in demo and s.hours is None]
        for shop in unscheduled:
            shop.hours = demo[shop.name].hours
        Shop.objects.bulk_update(unscheduled, ["hours"], batch_size=500)
    if fresh:  # a bulk insert bypasses the per-shop service: rebuild the indexes wholesale
        services.shop_indexes_rebuild()
    shop_cache().evict_many({shop.id for shop in [*bare, *unscheduled]})
    services.shop_types_changed()
    services.cities_changed()
    return ShopType.objects.count(), Shop.objects.count()
