"""Admin sign-in: failures are limited per client IP and per username from one IP, so that
nobody can lock the operator out from elsewhere; successes are free."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories import UserFactory


@pytest.fixture
def operator(db):
    user = UserFactory(username="operator", is_staff=True, is_superuser=True)
    user.set_password("right-password-123")
    user.save()
    return user


def _limit(settings, **rates: str) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], **rates},
    }


def _sign_in(client: Client, username: str, password: str, ip: str = "10.0.0.1"):
    return client.post(
        "/admin/login/?next=/admin/",
        {"username": username, "password": password},
        REMOTE_ADDR=ip,
    )


@pytest.mark.django_db
def test_guessing_one_username_from_one_address_is_limited(operator, settings) -> None:
    _limit(settings, admin_login_user_ip="3/15minutes", admin_login_ip="100/15minutes")
    client = Client()
    statuses = [_sign_in(client, "operator", "guess").status_code for _ in range(3)]

    refused = _sign_in(client, "operator", "right-password-123")

    assert statuses == [200, 200, 200]  # the form again, with its error
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 800
    assert "_auth_user_id" not in client.session  # the right password was never checked


@pytest.mark.django_db
def test_failures_with_the_operators_username_cannot_lock_the_operator_out(
    operator, settings
) -> None:
    # Before, a username's failures counted from every address: anyone could lock it out.
    _limit(settings, admin_login_user_ip="3/15minutes", admin_login_ip="100/15minutes")
    attacker = Client()
    failures = [
        _sign_in(attacker, "operator", "guess", ip=f"203.0.113.{i % 4}").status_code
        for i in range(20)
    ]
    operator_client = Client()

    signed_in = _sign_in(operator_client, "operator", "right-password-123", ip="10.0.0.7")

    assert 429 in failures  # the attacker's addresses were slowed down...
    assert signed_in.status_code == 302  # ...and the operator, elsewhere, was not
    assert operator_client.session["_auth_user_id"] == str(operator.id)


@pytest.mark.django_db
def test_failures_per_address_are_limited_across_usernames(operator, settings) -> None:
    _limit(settings, admin_login_ip="3/15minutes", admin_login_user_ip="100/15minutes")
    client = Client()
    for name in ("a", "b", "c"):
        assert _sign_in(client, name, "guess").status_code == 200

    assert _sign_in(client, "operator", "right-password-123").status_code == 429
    assert _sign_in(client, "operator", "right-password-123", ip="10.0.0.2").status_code == 302


@pytest.mark.django_db
def test_failures_from_the_addresses_of_one_ipv6_64_share_one_limit(operator, settings) -> None:
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    _limit(settings, admin_login_ip="3/15minutes", admin_login_user_ip="3/15minutes")
    client = Client()

    def sign_in(address: str, password: str = "guess") -> int:
        return client.post(
            "/admin/login/?next=/admin/",
            {"username": "operator", "password": password},
            HTTP_X_FORWARDED_FOR=address,
        ).status_code

    failures = [sign_in(f"2001:db8:5:5::{i + 1:x}") for i in range(3)]

    assert failures == [200, 200, 200]
    assert sign_in("2001:db8:5:5:ffff::1", "right-password-123") == 429  # same /64
    assert sign_in("2001:db8:5:6::1", "right-password-123") == 302  # the next /64


@pytest.mark.django_db
def test_successful_sign_ins_use_no_budget(operator, settings) -> None:
    _limit(settings, admin_login_ip="2/15minutes", admin_login_user_ip="2/15minutes")

    for _ in range(5):
        client = Client()
        response = _sign_in(client, "operator", "right-password-123")
        assert response.status_code == 302
        assert client.session["_auth_user_id"] == str(operator.id)
