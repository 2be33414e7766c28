"""User endpoints: the caller's own data, public profiles, and profile edits."""

from __future__ import annotations

import json

import pytest

from accounts import keys
from accounts.models import User, UserInfo


@pytest.mark.django_db
def test_me_shows_the_masked_phone(user, user_api) -> None:
    response = user_api.get("/api/users/me")

    assert response.status_code == 200
    assert response.json() == {
        "id": user.id,
        "nick_name": user.nick_name,
        "icon": "",
        "phone": f"{user.phone[:3]}****{user.phone[-4:]}",
    }


@pytest.mark.django_db
def test_me_requires_login(api) -> None:
    assert api.get("/api/users/me").status_code == 401
    assert api.patch("/api/users/me", {"nick_name": "x"}, format="json").status_code == 401


@pytest.mark.django_db
def test_profile_edit_updates_db_and_the_live_token(
    user, user_api, redis_client, django_capture_on_commit_callbacks
) -> None:
    token_key = keys.login_token(user_api.token)
    redis_client.expire(token_key, 600)
    body = {"nick_name": "Foodie", "icon": "https://img.example/a.png", "phone": "13000000000"}

    with django_capture_on_commit_callbacks(execute=True):
        response = user_api.patch("/api/users/me", body, format="json")

    assert response.status_code == 200
    assert response.json()["nick_name"] == "Foodie"
    user.refresh_from_db()
    assert (user.nick_name, user.icon) == ("Foodie", "https://img.example/a.png")
    assert user.phone != "13000000000"  # not a writable field
    assert json.loads(redis_client.get(token_key))["nick_name"] == "Foodie"
    assert redis_client.ttl(token_key) > 1700  # the PATCH itself refreshed the token


@pytest.mark.django_db
@pytest.mark.parametrize(
    "body",
    [
        {"nick_name": ""},
        {"nick_name": "x" * 33},
        {"nick_name": "bad\x00name"},
        {"icon": "javascript:alert(1)"},
        {"icon": "/" + "a" * 255},
        {"icon": "https://has space"},
    ],
)
def test_bad_profile_edits_are_400_and_change_nothing(user, user_api, body) -> None:
    before = User.objects.values("nick_name", "icon").get(pk=user.pk)

    response = user_api.patch("/api/users/me", body, format="json")

    assert response.status_code == 400
    assert set(response.json()["errors"]) == set(body)
    assert User.objects.values("nick_name", "icon").get(pk=user.pk) == before


@pytest.mark.django_db
def test_public_user_hides_the_phone(api, user) -> None:
    response = api.get(f"/api/users/{user.id}")

    assert response.status_code == 200
    assert response.json() == {"id": user.id, "nick_name": user.nick_name, "icon": ""}


@pytest.mark.django_db
@pytest.mark.parametrize(
    "user_id", ["999999", "0", "99999999999999999999", "9223372036854775808", "abc", "-1"]
)
def test_unknown_or_impossible_user_id_is_404(api, user, user_id) -> None:
    response = api.get(f"/api/users/{user_id}")

    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"


@pytest.mark.django_db
def test_user_info_is_public(api, user) -> None:
    UserInfo.objects.filter(user=user).update(
        city="Hangzhou", fans=3, gender=UserInfo.Gender.FEMALE
    )

    response = api.get(f"/api/users/{user.id}/info")

    assert response.status_code == 200
    body = response.json()
    assert body["city"] == "Hangzhou"
    assert body["fans"] == 3
    assert body["gender"] == "female"
    assert set(body) == {
        "user_id",
        "city",
        "introduce",
        "fans",
        "followee",
        "gender",
        "birthday",
        "credits",
        "level",
    }


@pytest.mark.django_db
def test_user_info_defaults_for_accounts_without_a_profile_row(api, user) -> None:
    UserInfo.objects.filter(user=user).delete()

    response = api.get(f"/api/users/{user.id}/info")

    assert response.status_code == 200
    assert response.json()["fans"] == 0
    assert api.get("/api/users/424242/info").status_code == 404
    assert api.get("/api/users/99999999999999999999/info").status_code == 404


@pytest.mark.django_db
def test_disabled_user_is_not_public(api, user) -> None:
    User.objects.filter(pk=user.pk).update(is_active=False)

    assert api.get(f"/api/users/{user.id}").status_code == 404
