from __future__ import annotations

import pytest
from django.core.management import call_command

from accounts.models import User, UserInfo
from blogs.demo import NOTES
from blogs.models import Blog
from dianping.redis import keys
from follows.models import Follow
from tests.conftest import client_for


@pytest.mark.django_db(transaction=True)
def test_seed_demo_gives_the_hot_list_and_feeds_content(api, redis_client) -> None:
    call_command("seed_demo", "--force")
    call_command("seed_demo", "--force")  # idempotent: nothing doubles

    assert Blog.objects.count() == 40
    notes = Blog.objects.select_related("shop").order_by("id")
    assert len({blog.content for blog in notes}) == 40  # forty different notes
    # Each note is about a branch of the brand it names (its shop's name starts with it).
    assert [blog.shop.name.split("(")[0] for blog in notes] == [brand for brand, *_ in NOTES]
    hot = api.get("/api/blogs/hot").json()["results"]
    assert hot[0]["liked"] > 0
    assert hot[0]["liked"] == redis_client.zcard(keys.blog_likes(hot[0]["id"]))
    demo = User.objects.get(phone="13800000001")
    assert UserInfo.objects.get(user=demo).followee == Follow.objects.filter(user=demo).count() == 3
    assert client_for(demo).get("/api/feed").json()["results"]
