"""Demo vouchers for `seed_demo`: everyday vouchers, a flash sale on now, one starting soon."""

from __future__ import annotations

from datetime import timedelta

from dianping import clock
from shops.models import Shop

from . import services
from .models import Voucher

SALE_TITLE = "限时秒杀 ¥100 代金券"


def seed_vouchers() -> dict[str, int]:
    """Idempotent: everyday vouchers once per shop; flash sales only when none is on
    or starting within the hour (so every `make run` has something to grab)."""
    shops = list(Shop.objects.filter(type__name="美食").order_by("id")[:5])
    if not shops:
        return {"vouchers": 0}
    for shop in shops:
        if not Voucher.objects.filter(shop=shop, type=Voucher.Kind.NORMAL).exists():
            services.voucher_create(
                data={
                    "shop": shop,
                    "title": "¥50 代金券",
                    "sub_title": "周一至周日可用",
                    "rules": "全场通用\n无需预约\n可叠加使用",
                    "pay_value": 4750,
                    "actual_value": 5000,
                    "type": Voucher.Kind.NORMAL,
                }
            )
    now = clock.now()
    sales = Voucher.objects.filter(type=Voucher.Kind.SECKILL).exclude(status=Voucher.Status.VOID)
    if not sales.filter(begin_time__lte=now, end_time__gt=now).exists():
        _sale(shops[0], begin=now - timedelta(minutes=1), stock=100)
    if not sales.filter(begin_time__gt=now, begin_time__lte=now + timedelta(hours=1)).exists():
        _sale(shops[1 % len(shops)], begin=now + timedelta(minutes=10), stock=50)
    return {"vouchers": Voucher.objects.count()}


def _sale(shop: Shop, *, begin, stock: int) -> Voucher:  # type: ignore[no-untyped-def]
    return services.voucher_create(
        data={
            "shop": shop,
            "title": SALE_TITLE,
            "sub_title": "每人限抢一张",
            "rules": "周一至周五可用\n不可与其他优惠同享",
            "pay_value": 5900,
            "actual_value": 10000,
            "type": Voucher.Kind.SECKILL,
            "stock": stock,
            "begin_time": begin,
            "end_time": begin + timedelta(days=1),
            "valid_days": 30,
        }
    )
