"""Profile editing (`PATCH /api/users/me/info`): the owner's own fields, validated, shown
at once by the public profile; the follow counters in the same row are never touched."""

from __future__ import annotations

from datetime import timedelta

import pytest

from accounts.models import UserInfo
from follows import services as follows
from tests.factories import UserFactory
from toolkit import clock


@pytest.mark.django_db
def test_owner_edits_profile_and_the_public_page_shows_it(api, user, user_api) -> None:
    response = user_api.patch(
        "/api/users/me/info",
        {
            "city": "  杭州 ",
            "introduce": "爱吃面\n也爱拍照",
            "gender": "female",
            "birthday": "1990-02-28",
        },
        format="json",
    )

    assert response.status_code == 200
    shown = api.get(f"/api/users/{user.id}/info").json()
    assert response.json() == shown
    assert (shown["city"], shown["introduce"], shown["gender"], shown["birthday"]) == (
        "杭州",
        "爱吃面\n也爱拍照",
        "female",
        "1990-02-28",
    )
    # Only what is sent changes; null clears the birthday.
    user_api.patch("/api/users/me/info", {"birthday": None}, format="json")
    info = UserInfo.objects.get(user=user)
    assert (info.city, info.gender, info.birthday) == ("杭州", UserInfo.Gender.FEMALE, None)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "body",
    [
        {"city": "x" * 65},
        {"introduce": "y" * 129},
        {"city": "Shang\u202ehai"},  # a bidi override
        {"city": "a\nb"},  # one line
        {"introduce": "bell\x07"},
        {"gender": "other"},
        {"gender": 1},
        {"birthday": "1899-12-31"},
        {"birthday": "1990-02-30"},
        {"birthday": "19900101"},
        {"birthday": 19900101},
        {"fans": 1000, "city": "x" * 65},
    ],
)
def test_bad_profile_edits_are_400_and_change_nothing(user, user_api, body) -> None:
    before = list(UserInfo.objects.filter(user=user).values())

    response = user_api.patch("/api/users/me/info", body, format="json")

    assert response.status_code == 400, response.content
    assert list(UserInfo.objects.filter(user=user).values()) == before


@pytest.mark.django_db
def test_a_birthday_may_be_today_but_not_tomorrow(user, user_api) -> None:
    today = clock.today()
    tomorrow = user_api.patch(
        "/api/users/me/info", {"birthday": (today + timedelta(days=1)).isoformat()}, format="json"
    )
    assert tomorrow.status_code == 400
    assert UserInfo.objects.get(user=user).birthday is None
    ok = user_api.patch("/api/users/me/info", {"birthday": today.isoformat()}, format="json")
    assert ok.json()["birthday"] == today.isoformat()


@pytest.mark.django_db(transaction=True)
def test_counters_and_server_fields_are_not_writable(user, user_api) -> None:
    fan = UserFactory()
    follows.follow(user_id=fan.id, target_id=user.id)

    user_api.patch(
        "/api/users/me/info",
        {"fans": 999, "followee": 7, "credits": 5, "level": 9, "user_id": fan.id, "city": "北京"},
        format="json",
    )

    info = UserInfo.objects.get(user=user)
    assert (info.city, info.fans, info.followee, info.credits, info.level) == ("北京", 1, 0, 0, 0)
    assert UserInfo.objects.get(user=fan).city == "Shanghai"  # the factory's, untouched


@pytest.mark.django_db
def test_an_account_without_a_profile_row_gets_one(user, user_api) -> None:
    UserInfo.objects.filter(user=user).delete()

    response = user_api.patch("/api/users/me/info", {"gender": "male"}, format="json")

    assert response.json()["gender"] == "male"
    assert UserInfo.objects.get(user=user).gender == UserInfo.Gender.MALE


@pytest.mark.django_db
def test_profile_edit_needs_login(api, user) -> None:
    assert api.patch("/api/users/me/info", {"city": "x"}, format="json").status_code == 401
    assert UserInfo.objects.get(user=user).city == "Shanghai"
