from __future__ import annotations

from typing import cast

import pytest
from django.core.management import call_command

from accounts.models import User
from blogs.models import ShopRating
from favourites.models import Favourite
from recommendations import keys
from tests.helpers import client_for
from toolkit.redis.client import get_redis


@pytest.mark.django_db(transaction=True)
def test_demo_user_1_is_suggested_shops_from_the_seeded_history(fake_clock) -> None:
    call_command("seed_demo", "--force")
    demo = User.objects.get(phone="13800000001")

    results = client_for(demo).get("/api/recommendations").json()["results"]

    assert len(results) == 10
    mine = set(Favourite.objects.filter(user=demo, kind="shop").values_list("object_id", flat=True))
    mine |= set(ShopRating.objects.filter(user=demo).values_list("shop_id", flat=True))
    assert mine
    assert not mine & {shop["id"] for shop in results}
    # The seeded history taught the model: the first suggestion is a neighbour of it.
    recent = _members(keys.recs_history(demo.id))
    neighbours: set[int] = set()
    for shop_id in recent:
        neighbours |= set(_members(keys.recs_neighbours(shop_id)))
    assert results[0]["id"] in neighbours


def _members(key: str) -> list[int]:
    return [int(m) for m in cast("list[bytes]", get_redis().zrange(key, 0, -1))]
