"""Operators manage users in Django admin; disabling an account logs it out everywhere."""

from __future__ import annotations

import pytest

from accounts import keys, tokens
from accounts.models import User
from tests.factories import UserFactory
from tests.helpers import client_for


def _token(client) -> str:
    return client.token


@pytest.mark.django_db
def test_user_list_and_search(admin_client, user) -> None:
    response = admin_client.get("/admin/accounts/user/", {"q": user.phone})

    assert response.status_code == 200
    assert user.nick_name.encode() in response.content


@pytest.mark.django_db
def test_log_out_everywhere_action_revokes_tokens(
    admin_client, user, other_user, redis_client
) -> None:
    selected = [user, other_user]
    revoked = [tokens.token_issue(u) for u in selected for _ in range(2)]
    bystander = UserFactory()
    kept = tokens.token_issue(bystander)

    response = admin_client.post(
        "/admin/accounts/user/",
        {"action": "log_out_everywhere", "_selected_action": [u.pk for u in selected]},
        follow=True,
    )

    assert response.status_code == 200
    assert "已注销 4 个有效登录凭证。" in response.content.decode()  # the admin's default language
    assert not any(redis_client.exists(keys.login_token(t)) for t in revoked)
    assert not any(redis_client.exists(keys.user_tokens(u.pk)) for u in selected)
    assert redis_client.exists(keys.login_token(kept))
    assert client_for(bystander).get("/api/users/me").status_code == 200


@pytest.mark.django_db
def test_deleting_a_user_in_admin_revokes_their_tokens(
    admin_client, user, redis_client, django_capture_on_commit_callbacks
) -> None:
    token = tokens.token_issue(user)

    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(f"/admin/accounts/user/{user.pk}/delete/", {"post": "yes"})

    assert response.status_code == 302
    assert not User.objects.filter(pk=user.pk).exists()
    assert not redis_client.exists(keys.login_token(token))


@pytest.mark.django_db
def test_bulk_deleting_users_in_admin_revokes_their_tokens(
    admin_client, user, other_user, redis_client, django_capture_on_commit_callbacks
) -> None:
    deleted = [user, other_user]
    apis = [client_for(u) for u in deleted]
    bystander = client_for(UserFactory())

    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(
            "/admin/accounts/user/",
            {
                "action": "delete_selected",
                "_selected_action": [u.pk for u in deleted],
                "post": "yes",
            },
        )

    assert response.status_code == 302
    assert not User.objects.filter(pk__in=[u.pk for u in deleted]).exists()
    for api in apis:
        assert not redis_client.exists(keys.login_token(_token(api)))
        # A live token of a deleted user would still pass authentication (204 here).
        assert api.post("/api/auth/logout").status_code == 401
    assert not any(redis_client.exists(keys.user_tokens(u.pk)) for u in deleted)
    assert bystander.get("/api/users/me").status_code == 200


@pytest.mark.django_db
def test_disabling_a_user_in_admin_revokes_their_tokens(
    admin_client, user, redis_client, django_capture_on_commit_callbacks
) -> None:
    token = tokens.token_issue(user)
    form = {
        "username": user.username,
        "phone": user.phone,
        "nick_name": user.nick_name,
        "icon": "",
        "is_active": "",
        "date_joined_0": "2026-01-01",
        "date_joined_1": "00:00:00",
        "info-TOTAL_FORMS": "1",
        "info-INITIAL_FORMS": "1",
        "info-MIN_NUM_FORMS": "0",
        "info-MAX_NUM_FORMS": "1",
        "info-0-user": user.pk,
        "info-0-city": "",
        "info-0-introduce": "",
        "info-0-gender": "0",
        "info-0-credits": "0",
        "info-0-level": "0",
    }

    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(f"/admin/accounts/user/{user.pk}/change/", form)

    assert response.status_code == 302, response.content[:2000]
    assert not User.objects.get(pk=user.pk).is_active
    assert not redis_client.exists(keys.login_token(token))
