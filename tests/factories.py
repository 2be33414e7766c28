from __future__ import annotations

import factory
from django.contrib.auth.hashers import make_password

from accounts.models import User, UserInfo


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        skip_postgeneration_save = True

    phone = factory.Sequence(lambda n: f"137{n:08d}")
    username = factory.SelfAttribute("phone")
    nick_name = factory.Sequence(lambda n: f"tester_{n}")
    password = factory.LazyFunction(lambda: make_password(None))
    info = factory.RelatedFactory("tests.factories.UserInfoFactory", factory_related_name="user")


class UserInfoFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = UserInfo

    city = "Shanghai"
