from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any, TypeVar

import factory
from django.conf import settings
from django.contrib.auth.hashers import make_password

from accounts.models import User, UserInfo
from blogs.models import Blog
from shops.models import City, Shop, ShopType
from vouchers.models import Voucher

if TYPE_CHECKING:
    from datetime import datetime

T = TypeVar("T")


class ModelFactory(factory.django.DjangoModelFactory[T]):
    """A factory whose call is typed as its model: `ShopFactory()` is a Shop to mypy too.

    Calling a factory class runs its metaclass's __call__, which creates the model; mypy does
    not read a metaclass's __call__, so this __new__ (never defined at run time) says it.
    """

    if TYPE_CHECKING:

        def __new__(cls, **kwargs: Any) -> T: ...  # type: ignore[misc]  # a model, not the class


class UserFactory(ModelFactory[User]):
    class Meta:
        model = User
        skip_postgeneration_save = True

    phone = factory.Sequence(lambda n: f"137{n:08d}")
    username = factory.SelfAttribute("phone")
    nick_name = factory.Sequence(lambda n: f"tester_{n}")
    password = factory.LazyFunction(lambda: make_password(None))
    info = factory.RelatedFactory("tests.factories.UserInfoFactory", factory_related_name="user")


class UserInfoFactory(ModelFactory[UserInfo]):
    class Meta:
        model = UserInfo

    city = "Shanghai"


class ShopTypeFactory(ModelFactory[ShopType]):
    class Meta:
        model = "shops.ShopType"

    name = factory.Sequence(lambda n: f"type-{n}")
    sort = factory.Sequence(lambda n: n)


# The city the cities migration makes (shops/migrations/0010): the default city.
SHANGHAI = {"name": "上海", "name_en": "Shanghai", "x": 121.4737, "y": 31.2304, "sort": 1}


def default_city() -> City:
    """The default city, as the migration left it: a transactional test's flush empties
    every table, the migration's rows too (tests/conftest.py puts it back for each test)."""
    city, _ = City.objects.get_or_create(code=settings.DEFAULT_CITY, defaults=SHANGHAI)
    return city


class CityFactory(ModelFactory[City]):
    """A city besides the default one. Rows only: created before a test's first per-city
    read, or through shops.services.city_save (the city list is cached)."""

    class Meta:
        model = "shops.City"

    code = factory.Sequence(lambda n: f"city-{n}")
    name = factory.Sequence(lambda n: f"城市{n}")
    name_en = factory.Sequence(lambda n: f"City {n}")
    x = 120.1551
    y = 30.2741
    sort = factory.Sequence(lambda n: n + 10)


class ShopFactory(ModelFactory[Shop]):
    """Rows only: tests that need the GEO index or Bloom filter rebuild them explicitly."""

    class Meta:
        model = "shops.Shop"

    name = factory.Sequence(lambda n: f"Shop {n}")
    type = factory.SubFactory(ShopTypeFactory)
    city = factory.LazyFunction(default_city)
    address = factory.Sequence(lambda n: f"{n} Nanjing West Road")
    area = "Jing'an"
    x = 121.4737
    y = 31.2304
    avg_price = 80
    score = 45
    open_hours = "10:00-22:00"


class VoucherFactory(ModelFactory[Voucher]):
    """A flash sale starting in an hour, by default; rows only (no Redis stock)."""

    class Meta:
        model = "vouchers.Voucher"

    shop = factory.SubFactory(ShopFactory)
    title = factory.Sequence(lambda n: f"¥50 voucher {n}")
    pay_value = 4500
    actual_value = 5000
    type = "seckill"
    stock: int | None = 100
    begin_time: factory.LazyFunction | None = factory.LazyFunction(
        lambda: _now() + timedelta(hours=1)
    )
    end_time: factory.LazyAttribute | None = factory.LazyAttribute(
        lambda v: v.begin_time + timedelta(hours=2)
    )


class NormalVoucherFactory(VoucherFactory):
    """An everyday voucher: claimed, not sold in a flash sale; unlimited unless given stock."""

    type = "normal"
    stock = None
    begin_time = None
    end_time = None


def _now() -> datetime:
    from toolkit import clock

    return clock.now()


class BlogFactory(ModelFactory[Blog]):
    class Meta:
        model = "blogs.Blog"

    user = factory.SubFactory(UserFactory)
    title = factory.Sequence(lambda n: f"Visit note {n}")
    content = "Great noodles, friendly staff."
