"""Demo accounts for `manage.py seed_demo`."""

from __future__ import annotations

import os

from django.contrib.auth.hashers import make_password
from django.db import transaction

from pictures.demo_pictures import demo_picture

from .models import User, UserInfo

ADMIN_USERNAME = "admin"
ADMIN_PASSWORD = os.environ.get("DEMO_ADMIN_PASSWORD", "dianping-admin")

DEMO_USERS = [
    ("13800000001", "魔都吃货小明", "上海", "上海土著，生煎面馆老字号一家家吃过去，周末顺便剪个头、按个脚。"),
    ("13800000002", "火锅少女Lily", "上海", "火锅是一种生活方式，吃完必须转场唱K。"),
    ("13800000003", "骑行的阿磊", "杭州", "单车、撸铁和咖啡，练完就要吃顿好的。"),
    ("13800000004", "小笼包测评员张伟", "上海", "见一只小笼包测一只：皮厚、汤汁、褶子数都记。"),
    ("13800000005", "Amy的精致日常", "苏州", "美甲美睫做SPA，周末坐高铁来上海变美。"),
    ("13800000006", "夜猫子阿杰", "上海", "深夜觅食侦察兵，专找开到凌晨两点的店。"),
    ("13800000007", "偷得半日闲", "南京", "喜欢早茶、足疗和安静的角落，出差也要偷个闲。"),
    ("13800000008", "二宝妈妈赵敏", "上海", "家有两娃，大桌聚餐和遛娃乐园全靠我踩点。"),
    ("13800000009", "无辣不欢周涛", "上海", "吃辣从不后悔，后悔是第二天的事。"),
    ("13800000010", "宁波小黄鱼", "宁波", "海边长大，对海鲜很挑剔；来上海就找好吃的和好看的夜景。"),
]  # fmt: skip


@transaction.atomic
def seed_admin() -> tuple[User, bool]:
    """The demo operator, created once with the demo password; returns it and whether it
    is new. An existing account is left alone: its password may have been changed on
    purpose, and `make run` seeds on every start."""
    staff, created = User.objects.get_or_create(
        username=ADMIN_USERNAME,
        defaults={"nick_name": "平台运营", "is_staff": True, "is_superuser": True},
    )
    if created:
        staff.set_password(ADMIN_PASSWORD)
        staff.save(update_fields=["password"])
        UserInfo.objects.create(user=staff)
    return staff, created


# The demo merchant: logs in by SMS like everyone, and owns three demo shops
# (merchants/demo.py). Until it did, it was the first demo shop's clerk, "店员小王".
MERCHANT_PHONE = "13800000099"
MERCHANT_NICK_NAME = "王老板"


@transaction.atomic
def seed_merchant() -> User:
    merchant, _ = User.objects.update_or_create(
        phone=MERCHANT_PHONE,
        defaults={"nick_name": MERCHANT_NICK_NAME},
        create_defaults={
            "username": MERCHANT_PHONE,
            "nick_name": MERCHANT_NICK_NAME,
            "password": make_password(None),
        },
    )
    UserInfo.objects.update_or_create(
        user=merchant,
        defaults={"city": "上海", "introduce": "南翔馒头店三家分店的店主，每条评价都会回复。"},
    )
    _give_avatar(merchant)
    return merchant


@transaction.atomic
def seed_users() -> list[User]:
    users = []
    for phone, nick_name, city, introduce in DEMO_USERS:
        user, _ = User.objects.update_or_create(
            phone=phone,
            defaults={"nick_name": nick_name},
            create_defaults={
                "username": phone,
                "nick_name": nick_name,
                "password": make_password(None),
            },
        )
        UserInfo.objects.update_or_create(
            user=user, defaults={"city": city, "introduce": introduce}
        )
        _give_avatar(user)
        users.append(user)
    return users


def _give_avatar(user: User) -> None:
    """A drawn picture, unless the user chose one since (kept)."""
    if not user.icon:
        user.icon = demo_picture(f"avatar-{user.phone}", size=(240, 240))
        user.save(update_fields=["icon"])
