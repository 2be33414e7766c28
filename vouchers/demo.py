"""Demo vouchers for `seed_demo`: everyday cash vouchers, one of each discount type at the
first demo shop, a flash sale on now (the biggest, with a challenge before the grab) and
one starting soon; and a flash sale on now in the second city (decision 398)."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from shops.demo import SECOND_CITY
from shops.models import Shop
from toolkit import clock

from . import services
from .models import Voucher

SALE_TITLE = "限时秒杀 ¥100 代金券"
CITY_SALE_TITLE = "西湖限时秒杀 ¥100 代金券"  # the second city's sale
CASH_TITLE = "¥50 代金券"


# The first demo shop's coupons, one per discount type: (title, fields). A sub-title says
# what the rule does not (the client spells the rule out itself).
DISCOUNT_VOUCHERS = [
    (
        "满100减20",
        {
            "sub_title": "每人限领2张",
            "rules": "单笔消费满100元立减20元\n每人限领2张",
            "pay_value": 0,
            "actual_value": 2000,
            "discount_type": Voucher.DiscountType.FULL_REDUCTION,
            "amount_condition": 10000,
            "discount_amount": 2000,
            "per_user_limit": 2,
            "stock": 500,
        },
    ),
    (
        "全场8.8折",
        {
            "sub_title": "酒水除外",
            "rules": "全场菜品8.8折\n最高优惠50元\n酒水除外",
            "pay_value": 0,
            "actual_value": 5000,
            "discount_type": Voucher.DiscountType.PERCENTAGE,
            "discount_rate": 88,
            "max_discount": 5000,
        },
    ),
]


def demo_shops() -> list[Shop]:
    """The food shops the demo vouchers belong to; the first one has a clerk too."""
    return list(Shop.objects.filter(type__name="美食", city__code="shanghai").order_by("id")[:5])


def seed_vouchers() -> dict[str, int]:
    """Idempotent: everyday vouchers once per shop, the discount-type vouchers once; a
    flash sale on now when none is, and the demo's later sale (ten minutes after the first
    seeding) only once the previous one has ended, so a restart adds no sale."""
    shops = demo_shops()
    if not shops:
        return {"vouchers": 0}
    for title, fields in DISCOUNT_VOUCHERS:
        if not Voucher.objects.filter(shop=shops[0], title=title).exists():
            data = {"shop": shops[0], "title": title, "type": Voucher.Kind.NORMAL, **fields}
            services.voucher_create(data=data)
    for shop in shops:
        if not Voucher.objects.filter(shop=shop, title=CASH_TITLE).exists():
            services.voucher_create(
                data={
                    "shop": shop,
                    "title": CASH_TITLE,
                    "sub_title": "周一至周日可用",
                    "rules": "全场通用\n无需预约\n可叠加使用",
                    "pay_value": 4750,
                    "actual_value": 5000,
                    "type": Voucher.Kind.NORMAL,
                }
            )
    now = clock.now()
    sales = Voucher.objects.filter(type=Voucher.Kind.SECKILL, shop__city=shops[0].city_id)
    sales = sales.exclude(status=Voucher.Status.VOID)
    if not sales.filter(begin_time__lte=now, end_time__gt=now).exists():
        # The demo's biggest sale asks a challenge before the grab (decision 500).
        _sale(shops[0], begin=now - timedelta(minutes=1), stock=100, challenge=True)
    later_shop = shops[1 % len(shops)]
    if not sales.filter(shop=later_shop, title=SALE_TITLE, end_time__gt=now).exists():
        _sale(later_shop, begin=now + timedelta(minutes=10), stock=50)
    _second_city_sale(now)
    return {"vouchers": Voucher.objects.count()}


def sales_summary() -> str:
    """The demo's flash sales as the client shows them now: "2 on now, the next at 14:05"."""
    now = clock.now()
    sales = Voucher.objects.filter(type=Voucher.Kind.SECKILL).exclude(status=Voucher.Status.VOID)
    on = sales.filter(begin_time__lte=now, end_time__gt=now).count()
    later = sales.filter(begin_time__gt=now).order_by("begin_time").first()
    upcoming = (
        f"the next at {timezone.localtime(later.begin_time):%H:%M}" if later else "none later"
    )
    return f"flash sales: {on} on now, {upcoming}"


def _second_city_sale(now) -> None:
    """A flash sale on now at the second city's first food shop, unless one is on there."""
    shop = Shop.objects.filter(city__code=SECOND_CITY, type__name="美食").order_by("id").first()
    if shop is None:
        return
    on = Voucher.objects.filter(
        type=Voucher.Kind.SECKILL, shop__city=shop.city_id, begin_time__lte=now, end_time__gt=now
    ).exclude(status=Voucher.Status.VOID)
    if not on.exists():
        _sale(shop, begin=now - timedelta(minutes=1), stock=60, title=CITY_SALE_TITLE)


def _sale(
    shop: Shop, *, begin, stock: int, title: str = SALE_TITLE, challenge: bool = False
) -> Voucher:
    return services.voucher_create(
        data={
            "shop": shop,
            "title": title,
            "sub_title": "每人限抢一张",
            "rules": "周一至周五可用\n不可与其他优惠同享",
            "pay_value": 5900,
            "actual_value": 10000,
            "type": Voucher.Kind.SECKILL,
            "stock": stock,
            "begin_time": begin,
            "end_time": begin + timedelta(days=1),
            "valid_days": 30,
            "challenge": challenge,
        }
    )
