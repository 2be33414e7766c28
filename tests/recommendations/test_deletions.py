"""A deleted shop's and a deleted user's own recommendations keys go once the deletion
commits (decision 421); a deleted shop left in another shop's neighbour list is never
answered."""

from __future__ import annotations

import pytest
from django.db import transaction

from accounts.models import User
from blogs.models import ShopRating
from favourites.services import favourite_save
from recommendations import keys
from shops.services import shop_delete
from tests.factories import ShopFactory, UserFactory
from tests.helpers import client_for

pytestmark = pytest.mark.django_db(transaction=True)


def _save(user, *shops) -> None:
    for shop in shops:
        favourite_save(user_id=user.id, kind="shop", object_id=shop.id)


def _rate(user, shop, stars=4) -> None:
    body = {"title": "探店", "content": "好吃", "shop_id": shop.id, "rating": stars}
    assert client_for(user).post("/api/blogs", body, format="json").status_code == 201


def _delete_rolled_back(instance) -> None:
    def delete_then_fail() -> None:
        with transaction.atomic():
            instance.delete()
            raise RuntimeError("rolled back")

    with pytest.raises(RuntimeError):
        delete_then_fail()


def _shop_keys(redis_client, shop_id: int) -> tuple[int, float | None]:
    own = redis_client.exists(keys.recs_counts(shop_id), keys.recs_neighbours(shop_id))
    return own, redis_client.zscore(keys.recs_popularity(), shop_id)


def test_a_deleted_shops_keys_go_after_commit_and_reads_skip_it(redis_client) -> None:
    a, b, c = ShopFactory.create_batch(3)
    for user in UserFactory.create_batch(2):
        _save(user, a, b, c)
    reader = UserFactory()
    _save(reader, a)
    b_id = b.id  # a deletion clears the instance's pk, even one rolled back
    assert _shop_keys(redis_client, b_id) == (2, 2.0)

    _delete_rolled_back(b)  # nothing goes
    assert _shop_keys(redis_client, b_id) == (2, 2.0)

    shop_delete(shop_id=b_id)

    assert _shop_keys(redis_client, b_id) == (0, None)
    assert _shop_keys(redis_client, c.id) == (2, 2.0)  # its neighbours are untouched
    # b's id stays in a's list (the rebuild drops it); the read answers no card for it.
    assert redis_client.zscore(keys.recs_neighbours(a.id), b_id) is not None
    response = client_for(reader).get("/api/recommendations")
    assert response.status_code == 200
    suggested = [shop["id"] for shop in response.json()["results"]]
    assert suggested[0] == c.id
    assert b_id not in suggested


def test_a_deleted_users_history_and_rated_set_go_after_commit(redis_client) -> None:
    shop, other_shop = ShopFactory.create_batch(2)
    gone, stays = UserFactory(), UserFactory()
    for user in (gone, stays):
        _save(user, other_shop)
        _rate(user, shop)
    gone_id = gone.id
    mine = (keys.recs_history(gone_id), keys.recs_rated(gone_id))
    theirs = (keys.recs_history(stays.id), keys.recs_rated(stays.id))
    assert redis_client.exists(*mine) == 2

    _delete_rolled_back(gone)
    assert redis_client.exists(*mine) == 2

    User.objects.get(pk=gone_id).delete()

    assert redis_client.exists(*mine) == 0
    assert redis_client.exists(*theirs) == 2
    assert redis_client.zcard(keys.recs_history(stays.id)) == 2


@pytest.mark.django_db(transaction=True)
def test_a_deleted_rating_leaves_the_rated_set_and_a_rolled_back_one_stays(redis_client) -> None:
    """Deleting a review takes its rating away: the shop leaves the reader's rated set
    (suggestable again) after the commit, and not at all when the deletion rolls back."""
    user, shop = UserFactory(), ShopFactory()
    api = client_for(user)
    body = {"title": "t", "content": "c", "shop_id": shop.id, "rating": 4}
    review = api.post("/api/blogs", body, format="json").json()["id"]
    assert redis_client.sismember(keys.recs_rated(user.id), shop.id)

    _delete_rolled_back(ShopRating.objects.get(user=user, shop=shop))
    assert redis_client.sismember(keys.recs_rated(user.id), shop.id)

    assert api.delete(f"/api/blogs/{review}").status_code == 204
    assert not redis_client.sismember(keys.recs_rated(user.id), shop.id)
