"""Follows: idempotent API, exact counters and Redis sets under real concurrency."""

from __future__ import annotations

import random

import pytest
from django.core.management import call_command

from accounts.models import UserInfo
from follows import keys, services
from follows.models import Follow
from tests.factories import UserFactory
from tests.helpers import client_for, run_concurrently


def _counts(user) -> tuple[int, int]:
    info = UserInfo.objects.get(user=user)
    return info.fans, info.followee


@pytest.mark.django_db(transaction=True)
def test_follow_and_unfollow_are_idempotent_and_counted(user, other_user, user_api) -> None:
    url = f"/api/follows/{other_user.id}"

    assert user_api.get(url).json() == {"following": False}
    assert user_api.put(url).json() == {"following": True}
    assert user_api.put(url).json() == {"following": True}
    assert user_api.get(url).json() == {"following": True}
    assert (_counts(user), _counts(other_user)) == ((0, 1), (1, 0))

    assert user_api.delete(url).json() == {"following": False}
    assert user_api.delete(url).json() == {"following": False}
    assert user_api.get(url).json() == {"following": False}
    assert (_counts(user), _counts(other_user)) == ((0, 0), (0, 0))
    assert not Follow.objects.exists()


@pytest.mark.django_db(transaction=True)  # after-commit Redis syncs run for real
def test_errors_change_nothing(user, user_api, api, redis_client) -> None:
    follow_self = user_api.put(f"/api/follows/{user.id}")
    assert (follow_self.status_code, follow_self.json()["code"]) == (409, "cannot_follow_self")
    assert user_api.delete(f"/api/follows/{user.id}").json() == {"following": False}
    assert user_api.put("/api/follows/424242").status_code == 404
    assert user_api.delete("/api/follows/424242").status_code == 404
    assert user_api.get("/api/follows/common/424242").status_code == 404
    for method in ("put", "delete", "get"):
        assert getattr(api, method)(f"/api/follows/{user.id}").status_code == 401
    assert api.get(f"/api/follows/common/{user.id}").status_code == 401
    assert not Follow.objects.exists()
    assert not redis_client.exists(keys.following(user.id))
    assert _counts(user) == (0, 0)


@pytest.mark.django_db(transaction=True)
def test_common_follows_are_the_intersection(user, other_user) -> None:
    people = UserFactory.create_batch(6)
    for person in people[:4]:
        services.follow(user_id=user.id, target_id=person.id)
    for person in people[2:]:
        services.follow(user_id=other_user.id, target_id=person.id)

    common = client_for(user).get(f"/api/follows/common/{other_user.id}").json()

    assert [u["id"] for u in common] == [people[2].id, people[3].id]
    assert set(common[0]) == {"id", "nick_name", "icon"}


@pytest.mark.django_db(transaction=True)
def test_concurrent_follows_and_unfollows_keep_counts_and_sets_exact(redis_client) -> None:
    users = UserFactory.create_batch(12)

    def churn(i: int) -> None:
        rng = random.Random(i)
        for _ in range(15):
            me, them = rng.sample(users, 2)
            change = services.follow if rng.random() < 0.6 else services.unfollow
            change(user_id=me.id, target_id=them.id)

    run_concurrently(churn, 12)

    rows = list(Follow.objects.values_list("user_id", "followed_id"))
    assert rows  # something happened
    for user in users:
        fans, followee = _counts(user)
        assert fans == sum(1 for _, followed in rows if followed == user.id)
        assert followee == sum(1 for follower, _ in rows if follower == user.id)
        in_redis = {int(m) for m in redis_client.smembers(keys.following(user.id))}
        assert in_redis == {followed for follower, followed in rows if follower == user.id}


@pytest.mark.django_db(transaction=True)
def test_repeating_a_follow_or_unfollow_repairs_a_failed_redis_sync(
    user, other_user, user_api, redis_client
) -> None:
    url = f"/api/follows/{other_user.id}"
    user_api.put(url)
    redis_client.delete(keys.following(user.id))  # the after-commit sync failed (a blip)
    assert user_api.get(url).json() == {"following": False}

    user_api.put(url)  # the client retries

    assert user_api.get(url).json() == {"following": True}
    user_api.delete(url)
    redis_client.sadd(keys.following(user.id), other_user.id)  # the unfollow's sync failed
    user_api.delete(url)
    assert user_api.get(url).json() == {"following": False}


@pytest.mark.django_db(transaction=True)
def test_following_sets_can_be_rebuilt_from_the_database(user, other_user, redis_client) -> None:
    services.follow(user_id=user.id, target_id=other_user.id)
    redis_client.delete(keys.following(user.id))  # as if Redis lost it
    redis_client.sadd(keys.following(other_user.id), user.id)  # and drifted elsewhere

    call_command("rebuild_following")

    assert services.is_following(user_id=user.id, target_id=other_user.id)
    assert not redis_client.exists(keys.following(other_user.id))
