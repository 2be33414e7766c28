"""Bearer tokens: refreshed by every request that carries them, revocable, never trusted blindly."""

from __future__ import annotations

import secrets

import pytest

from accounts import keys, services, tokens
from accounts.models import User
from tests.factories import UserFactory
from tests.helpers import client_for, command_calls, reset_command_stats


def _token(client) -> str:
    return client.token


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/users/me", "/api/users/{id}", "/api/health"])
def test_any_request_carrying_the_token_resets_its_ttl(user, user_api, redis_client, path) -> None:
    key = keys.login_token(_token(user_api))
    redis_client.expire(key, 10)

    response = user_api.get(path.format(id=user.id))

    assert response.status_code == 200
    assert 1790 <= redis_client.ttl(key) <= 1800


@pytest.mark.django_db
@pytest.mark.parametrize(
    "header",
    [
        "",
        "Bearer",
        "Bearer ",
        "Bearer not-a-token",
        f"Bearer {secrets.token_urlsafe(32)}",  # well formed, never issued
        f"Token {secrets.token_urlsafe(32)}",
        "Bearer " + "A" * 10_000,
        "Basic dXNlcjpwYXNz",
    ],
)
def test_missing_or_garbage_token_is_anonymous(api, user, header) -> None:
    kwargs = {"HTTP_AUTHORIZATION": header} if header else {}

    protected = api.get("/api/users/me", **kwargs)
    public = api.get(f"/api/users/{user.id}", **kwargs)

    assert protected.status_code == 401
    assert protected.json()["code"] == "not_authenticated"
    assert protected["WWW-Authenticate"].startswith("Bearer")
    assert public.status_code == 200


@pytest.mark.django_db
def test_logout_revokes_only_that_token(user, user_api, redis_client) -> None:
    other_session = tokens.token_issue(user)

    response = user_api.post("/api/auth/logout")

    assert response.status_code == 204
    assert not redis_client.exists(keys.login_token(_token(user_api)))
    assert user_api.get("/api/users/me").status_code == 401
    assert redis_client.exists(keys.login_token(other_session))


@pytest.mark.django_db
@pytest.mark.parametrize("header", [None, "Bearer nonsense", f"Bearer {secrets.token_urlsafe(32)}"])
def test_logout_without_a_valid_token_is_401(api, header) -> None:
    kwargs = {"HTTP_AUTHORIZATION": header} if header else {}

    response = api.post("/api/auth/logout", **kwargs)

    assert response.status_code == 401


@pytest.mark.django_db
def test_authentication_costs_one_redis_command(user, user_api, redis_client) -> None:
    reset_command_stats(redis_client)

    assert user_api.get(f"/api/users/{user.id}").status_code == 200

    # (The near cache's listener pings Redis when idle, from its own thread: not counted.)
    assert command_calls(redis_client) == {"getex": 1}


@pytest.mark.django_db
@pytest.mark.parametrize("change", ["delete", "disable"])
def test_a_token_outliving_its_account_is_401(
    user, user_api, change, django_capture_on_commit_callbacks
) -> None:
    # `me` is served from the token alone: what ends a token is its revocation, which
    # every delete and disable makes after commit (accounts.signals).
    with django_capture_on_commit_callbacks(execute=True):
        if change == "delete":
            user.delete()
        else:
            user.is_active = False
            user.save()

    assert user_api.get("/api/users/me").status_code == 401
    assert user_api.patch("/api/users/me", {"nick_name": "x"}, format="json").status_code == 401


@pytest.mark.django_db
def test_a_disabled_account_cannot_change_its_profile_even_before_revocation(
    user, user_api
) -> None:
    User.objects.filter(pk=user.pk).update(is_active=False)  # no signal: no revocation

    assert user_api.patch("/api/users/me", {"nick_name": "x"}, format="json").status_code == 401
    assert User.objects.get(pk=user.pk).nick_name == user.nick_name


@pytest.mark.django_db(transaction=True)  # the refresh runs after commit
def test_me_is_read_from_the_token_and_every_token_follows_a_profile_change(
    user, redis_client
) -> None:
    phone, laptop = client_for(user), client_for(user)
    reset_command_stats(redis_client)

    me = phone.get("/api/users/me").json()

    assert command_calls(redis_client) == {"getex": 1}  # no query, one round trip
    assert me == {
        "id": user.id,
        "nick_name": user.nick_name,
        "icon": user.icon,
        "phone": f"{user.phone[:3]}****{user.phone[-4:]}",
    }
    phone.patch("/api/users/me", {"nick_name": "Xiao Hong"}, format="json")
    assert laptop.get("/api/users/me").json()["nick_name"] == "Xiao Hong"


@pytest.mark.django_db
def test_deleting_a_user_through_the_orm_revokes_their_tokens(
    user, user_api, other_user, redis_client, django_capture_on_commit_callbacks
) -> None:
    user_id, token = user.id, _token(user_api)
    theirs = tokens.token_issue(other_user)

    with django_capture_on_commit_callbacks(execute=True):
        user.delete()

    assert not User.objects.filter(pk=user_id).exists()
    assert not redis_client.exists(keys.login_token(token))
    assert not redis_client.exists(keys.user_tokens(user_id))
    # A live token of a deleted user would still pass authentication (204 here).
    assert user_api.post("/api/auth/logout").status_code == 401
    assert redis_client.exists(keys.login_token(theirs))


@pytest.mark.django_db
def test_disabling_a_user_through_the_orm_revokes_their_tokens(
    user, user_api, other_user, redis_client, django_capture_on_commit_callbacks
) -> None:
    token, theirs = _token(user_api), tokens.token_issue(other_user)
    with django_capture_on_commit_callbacks(execute=True):
        user.save(update_fields=["updated_at"])  # an active user saved: nothing revoked
    assert redis_client.exists(keys.login_token(token))

    user.is_active = False
    with django_capture_on_commit_callbacks(execute=True):
        user.save()  # a shell, a script, the admin: all save the model

    assert not redis_client.exists(keys.login_token(token))
    assert redis_client.exists(keys.login_token(theirs))


@pytest.mark.django_db
def test_revoking_all_sessions_logs_the_user_out_everywhere(user, other_user, redis_client) -> None:
    mine = [tokens.token_issue(user) for _ in range(3)]
    theirs = tokens.token_issue(other_user)

    assert services.user_revoke_sessions(user_id=user.id) == 3

    assert not any(redis_client.exists(keys.login_token(t)) for t in mine)
    assert redis_client.exists(keys.login_token(theirs))


@pytest.mark.django_db
def test_revoking_many_users_at_once(user, other_user, redis_client) -> None:
    bystander = UserFactory()
    revoked = [tokens.token_issue(u) for u in (user, other_user) for _ in range(2)]
    redis_client.delete(keys.login_token(revoked[0]))  # expired: listed, but not live
    kept = tokens.token_issue(bystander)
    never_logged_in = UserFactory()
    reset_command_stats(redis_client)

    count = tokens.tokens_revoke_users([user.id, other_user.id, never_logged_in.id, user.id])

    assert count == 3
    calls = command_calls(redis_client)
    assert calls["smembers"] == 3  # one pipeline: one per distinct user
    assert calls["srem"] == 2  # the second pipeline: users with tokens
    assert not any(redis_client.exists(keys.login_token(t)) for t in revoked)
    assert not redis_client.exists(keys.user_tokens(user.id), keys.user_tokens(other_user.id))
    assert redis_client.exists(keys.login_token(kept))
    assert tokens.tokens_revoke_users([]) == 0


@pytest.mark.django_db
def test_login_prunes_expired_tokens_from_the_user_index(user, redis_client) -> None:
    old = tokens.token_issue(user)
    redis_client.delete(keys.login_token(old))  # as if it had expired

    fresh = tokens.token_issue(user)

    assert redis_client.smembers(keys.user_tokens(user.id)) == {fresh.encode()}
