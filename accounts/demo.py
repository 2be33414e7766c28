"""Demo accounts for `manage.py seed_demo`."""

from __future__ import annotations

import os

from django.contrib.auth.hashers import make_password
from django.db import transaction

from dianping.demo_pictures import demo_picture

from .models import User, UserInfo

ADMIN_USERNAME = "admin"
ADMIN_PASSWORD = os.environ.get("DEMO_ADMIN_PASSWORD", "dianping-admin")

DEMO_USERS = [
    ("13800000001", "Xiao Ming", "Shanghai", "Noodle hunter, weekend brunch reviewer."),
    ("13800000002", "Lily Chen", "Shanghai", "Hotpot is a lifestyle."),
    ("13800000003", "Wang Lei", "Hangzhou", "Coffee, bikes and dumplings."),
    ("13800000004", "Zhang Wei", "Shanghai", "I review every xiaolongbao I meet."),
    ("13800000005", "Amy Liu", "Suzhou", "Desserts first."),
    ("13800000006", "Chen Jie", "Shanghai", "Late-night barbecue scout."),
    ("13800000007", "Sun Yu", "Nanjing", "Tea houses and quiet corners."),
    ("13800000008", "Zhao Min", "Shanghai", "Family dinners, big tables."),
    ("13800000009", "Zhou Tao", "Shanghai", "Spicy food, no regrets."),
    ("13800000010", "Huang Qi", "Ningbo", "Seafood from the coast."),
]


@transaction.atomic
def seed_admin() -> tuple[User, bool]:
    """The demo operator, created once with the demo password; returns it and whether it
    is new. An existing account is left alone: its password may have been changed on
    purpose, and `make run` seeds on every start."""
    staff, created = User.objects.get_or_create(
        username=ADMIN_USERNAME,
        defaults={"nick_name": "Operator", "is_staff": True, "is_superuser": True},
    )
    if created:
        staff.set_password(ADMIN_PASSWORD)
        staff.save(update_fields=["password"])
        UserInfo.objects.create(user=staff)
    return staff, created


CLERK_PHONE = "13800000099"  # logs in by SMS like everyone; works at the first demo shop


@transaction.atomic
def seed_clerk() -> User:
    clerk, _ = User.objects.update_or_create(
        phone=CLERK_PHONE,
        defaults={"nick_name": "店员小王"},
        create_defaults={
            "username": CLERK_PHONE,
            "nick_name": "店员小王",
            "password": make_password(None),
        },
    )
    UserInfo.objects.get_or_create(user=clerk)
    _give_avatar(clerk)
    return clerk


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
