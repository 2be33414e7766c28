"""Followers and following lists: public, newest follow first, scrolled without skips or
repeats while follows come and go, with the caller's own follow state per user."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from follows import services
from tests.factories import UserFactory
from tests.helpers import client_for


def _scroll(api, url: str) -> list[int]:
    ids, cursor = [], ""
    while True:
        page = api.get(url + cursor).json()
        ids += [item["user"]["id"] for item in page["results"]]
        if page["last_id"] is None:
            return ids
        cursor = f"?last_id={page['last_id']}"


@pytest.mark.django_db(transaction=True)  # the following sets are written after commit
def test_followers_newest_first_with_public_user_and_time(api, user) -> None:
    fans = UserFactory.create_batch(12)
    for fan in fans:
        services.follow(user_id=fan.id, target_id=user.id)

    first = api.get(f"/api/users/{user.id}/followers").json()

    assert [item["user"]["id"] for item in first["results"]] == [f.id for f in fans[::-1][:10]]
    item = first["results"][0]
    assert item["user"] == {"id": fans[-1].id, "nick_name": fans[-1].nick_name, "icon": ""}
    assert item["followed_at"]
    assert item["is_following"] is False
    assert set(item) == {"user", "followed_at", "is_following"}  # no phone, nothing private
    assert _scroll(api, f"/api/users/{user.id}/followers") == [f.id for f in fans[::-1]]
    assert _scroll(api, f"/api/users/{fans[0].id}/following") == [user.id]


@pytest.mark.django_db(transaction=True)
def test_scrolling_neither_skips_nor_repeats_while_follows_change(api, user) -> None:
    fans = UserFactory.create_batch(15)
    for fan in fans:
        services.follow(user_id=fan.id, target_id=user.id)
    first = api.get(f"/api/users/{user.id}/followers").json()
    seen = [item["user"]["id"] for item in first["results"]]

    newcomer = UserFactory()
    services.follow(user_id=newcomer.id, target_id=user.id)  # lands before the cursor
    services.unfollow(user_id=fans[14].id, target_id=user.id)  # already seen, page 1
    services.unfollow(user_id=fans[0].id, target_id=user.id)  # not yet seen: gone
    rest = api.get(f"/api/users/{user.id}/followers?last_id={first['last_id']}").json()

    assert [item["user"]["id"] for item in rest["results"]] == [f.id for f in fans[4:0:-1]]
    assert rest["last_id"] is None
    assert seen == [f.id for f in fans[14:4:-1]]


@pytest.mark.django_db(transaction=True)
def test_the_callers_own_follow_state_in_one_round_trip(user, user_api) -> None:
    star = UserFactory()
    fans = UserFactory.create_batch(4)
    for fan in fans:
        services.follow(user_id=fan.id, target_id=star.id)
    services.follow(user_id=user.id, target_id=fans[1].id)
    services.follow(user_id=user.id, target_id=fans[3].id)

    body = user_api.get(f"/api/users/{star.id}/followers").json()

    states = {item["user"]["id"]: item["is_following"] for item in body["results"]}
    assert states == {fans[0].id: False, fans[1].id: True, fans[2].id: False, fans[3].id: True}
    with CaptureQueriesContext(connection) as queries:  # no query per listed user
        user_api.get(f"/api/users/{star.id}/following")
        user_api.get(f"/api/users/{star.id}/followers")
    assert len(queries) <= 4


@pytest.mark.django_db(transaction=True)
def test_disabled_users_leave_the_lists(api, user) -> None:
    fans = UserFactory.create_batch(3)
    for fan in fans:
        services.follow(user_id=fan.id, target_id=user.id)
    fans[1].is_active = False
    fans[1].save()

    assert _scroll(api, f"/api/users/{user.id}/followers") == [fans[2].id, fans[0].id]
    assert api.get(f"/api/users/{fans[1].id}/following").status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize("direction", ["followers", "following"])
def test_unknown_user_and_bad_cursor(api, user, direction) -> None:
    assert api.get(f"/api/users/987654/{direction}").status_code == 404
    assert api.get(f"/api/users/{user.id}/{direction}?last_id=abc").status_code == 400
    assert api.get(f"/api/users/{user.id}/{direction}?last_id=0").status_code == 400
    empty = client_for(user).get(f"/api/users/{user.id}/{direction}").json()
    assert empty == {"results": [], "last_id": None}
