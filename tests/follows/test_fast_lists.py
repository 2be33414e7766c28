"""The followers and following lists without DRF (decision 304): byte for byte what the
DRF viewset answered, in one query and one Redis round trip."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.renderers import JSONRenderer

from accounts.caches import user_cache
from accounts.selectors import public_user_document
from follows import selectors, services
from follows.views import FollowItemSerializer
from tests.factories import UserFactory
from tests.helpers import client_for, count_round_trips, warm_near_cache
from toolkit.api.lists import listed
from toolkit.api.scroll import scroll_page

pytestmark = pytest.mark.django_db(transaction=True)  # the following sets follow the commit


def _serializer_page(
    user_id: int, direction: str, last_id: int | None, caller: int | None
) -> dict[str, Any]:
    """The page as the DRF viewset made it before the fast path."""
    page, next_last_id = selectors.follow_list(
        user_id=user_id, direction=direction, last_id=last_id
    )
    users = [f.user if direction == "followers" else f.followed for f in page]
    states = selectors.following_states(user_id=caller, target_ids=[u.id for u in users])
    items = [
        {"user": user, "followed_at": follow.created_at, "is_following": states[user.id]}
        for follow, user in zip(page, users, strict=True)
    ]
    return scroll_page(listed(FollowItemSerializer(items, many=True)), next_last_id)


@pytest.mark.parametrize("direction", ["followers", "following"])
def test_the_lists_are_byte_for_byte_the_serializers(api, user, direction) -> None:
    others = UserFactory.create_batch(13, icon="/imgs/icons/x.jpg")
    for other in others:
        if direction == "followers":
            services.follow(user_id=other.id, target_id=user.id)
        else:
            services.follow(user_id=user.id, target_id=other.id)
    others[4].is_active = False  # left out
    others[4].save()
    caller = UserFactory()
    for other in others[::3]:
        services.follow(user_id=caller.id, target_id=other.id)
    url = f"/api/users/{user.id}/{direction}"

    for client, caller_id in ((api, None), (client_for(caller), caller.id)):
        first = client.get(url)
        last_id = int(first.json()["last_id"])
        second = client.get(url, {"last_id": last_id})
        for response, cursor in ((first, None), (second, last_id)):
            assert response.status_code == 200
            expected = _serializer_page(user.id, direction, cursor, caller_id)
            assert response.json() == expected
            assert response.content == JSONRenderer().render(expected)
        assert len(first.json()["results"]) + len(second.json()["results"]) == 12
        states = [i["is_following"] for i in first.json()["results"]]
        assert any(states) is (caller_id is not None)


def test_the_same_errors_as_before(api, user) -> None:
    gone = UserFactory(is_active=False)
    for direction in ("followers", "following"):
        missing = api.get(f"/api/users/987654/{direction}")
        assert (missing.status_code, missing.json()["code"]) == (404, "user_not_found")
        assert api.get(f"/api/users/{gone.id}/{direction}").status_code == 404
        assert api.get(f"/api/users/{user.id}/{direction}?last_id=x").status_code == 400
        assert api.post(f"/api/users/{user.id}/{direction}").status_code == 405
        assert api.head(f"/api/users/{user.id}/{direction}").status_code == 200


def test_a_page_is_one_query_and_the_token_one_round_trip(user, monkeypatch) -> None:
    star = UserFactory()
    for fan in UserFactory.create_batch(10):
        services.follow(user_id=fan.id, target_id=star.id)
    api = client_for(user)
    services.follow(user_id=user.id, target_id=star.id)
    api.get(f"/api/users/{star.id}/followers")  # the process learns the token's user
    warm_near_cache(user_cache(), star.id, lambda: public_user_document(user_id=star.id))
    round_trips = count_round_trips(monkeypatch)

    with CaptureQueriesContext(connection) as queries:
        body = api.get(f"/api/users/{star.id}/followers").json()

    assert len(body["results"]) == 10
    assert len(queries) == 1
    # The token's refresh and the caller's follow states share one pipeline: one batch per
    # server (on a Cluster, per node holding a key); the listed user is the process's copy.
    assert len(round_trips) == len(set(round_trips)) >= 1
    if not settings.REDIS_CLUSTER:
        assert len(round_trips) == 1


def test_a_disabled_user_is_404_at_once(api, user) -> None:
    fan = UserFactory()
    services.follow(user_id=fan.id, target_id=user.id)
    assert api.get(f"/api/users/{user.id}/followers").status_code == 200  # cached

    user.is_active = False
    user.save()

    assert api.get(f"/api/users/{user.id}/followers").status_code == 404
