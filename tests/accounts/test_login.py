"""SMS-code login end to end through the API, against real Redis and a real database."""

from __future__ import annotations

import re

import pytest
from django.conf import settings

from accounts import keys
from accounts.models import User, UserInfo
from tests.helpers import run_concurrently, wait_until

PHONE = "13912345678"


def _send(api, phone=PHONE):
    return api.post("/api/auth/code", {"phone": phone}, format="json")


def _code_from(outbox) -> str:
    sent = re.search(r"\b(\d{6})\b", outbox[-1][1])
    assert sent is not None
    return sent.group(1)


def _login(api, code, phone=PHONE):
    return api.post("/api/auth/login", {"phone": phone, "code": code}, format="json")


@pytest.mark.django_db
def test_code_is_sent_stored_as_digest_and_expires_in_two_minutes(
    api, sms_outbox, redis_client
) -> None:
    response = _send(api)

    assert response.status_code == 202
    assert response.json() == {"expires_in": 120}
    assert [phone for phone, _ in sms_outbox] == [PHONE]
    code = _code_from(sms_outbox)
    stored = redis_client.hgetall(keys.login_code(PHONE))
    assert code.encode() not in stored[b"digest"]
    assert stored[b"attempts"] == b"0"
    assert 110 <= redis_client.ttl(keys.login_code(PHONE)) <= 120


@pytest.mark.django_db
@pytest.mark.parametrize(
    "phone",
    [
        "12345678901",
        "1391234567",
        "139123456789",
        "abcdefghijk",
        "",
        " 13912345678x",
        "\uff11\uff13\uff19\uff11\uff12\uff13\uff14\uff15\uff16\uff17\uff18",  # full-width digits
        None,
        ["13912345678"],
        "9" * 5000,
    ],
)
def test_malformed_phone_is_rejected_and_nothing_is_sent(
    api, sms_outbox, redis_client, phone
) -> None:
    response = api.post("/api/auth/code", {"phone": phone}, format="json")

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert "phone" in response.json()["errors"]
    assert sms_outbox == []
    assert not list(redis_client.scan_iter("login:*"))


@pytest.mark.django_db
def test_body_that_is_not_an_object_or_not_json_is_a_400(api, sms_outbox) -> None:
    assert api.post("/api/auth/code", ["x"], format="json").status_code == 400
    broken = api.post("/api/auth/code", "{nope", content_type="application/json")
    assert broken.status_code == 400
    assert broken.json()["code"] == "parse_error"
    assert sms_outbox == []


@pytest.mark.django_db
def test_one_code_per_phone_per_minute(api, sms_outbox, fake_clock, redis_client) -> None:
    assert _send(api).status_code == 202

    key = keys.login_code(PHONE)
    digest = redis_client.hget(key, "digest")
    fake_clock.advance(30)
    refused = _send(api)
    assert refused.status_code == 429
    assert redis_client.hget(key, "digest") == digest  # the live code is untouched
    assert refused.json()["code"] == "throttled"
    assert refused["Retry-After"] == "30"
    assert len(sms_outbox) == 1

    fake_clock.advance(30)
    assert _send(api).status_code == 202
    assert _send(api, "13912345679").status_code == 202  # other phones are unaffected


@pytest.mark.django_db
def test_ten_codes_per_phone_per_day(api, sms_outbox, fake_clock) -> None:
    for _ in range(10):
        assert _send(api).status_code == 202
        fake_clock.advance(61)

    refused = _send(api)
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) == 24 * 3600 - 10 * 61
    assert len(sms_outbox) == 10


@pytest.mark.django_db
def test_codes_per_client_ip_are_limited(api, sms_outbox, settings) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"sms_ip": "3/hour", "login_ip": "100/minute"},
    }
    for i in range(3):
        assert _send(api, f"1391234560{i}").status_code == 202

    refused = _send(api, "13912345609")
    assert refused.status_code == 429
    assert 3590 <= int(refused["Retry-After"]) <= 3600
    elsewhere = api.post(
        "/api/auth/code", {"phone": "13912345609"}, format="json", REMOTE_ADDR="10.9.9.9"
    )
    assert elsewhere.status_code == 202
    assert len(sms_outbox) == 4


@pytest.mark.django_db
def test_sms_failure_is_a_503_and_leaves_no_code_and_no_used_quota(
    api, settings, redis_client, sms_outbox
) -> None:
    settings.SMS_BACKEND = "tests.accounts.failing_sms.FailingBackend"

    response = _send(api)

    assert response.status_code == 503
    assert response.json()["code"] == "service_unavailable"
    assert not redis_client.exists(keys.login_code(PHONE))
    settings.SMS_BACKEND = "locmem"
    assert _send(api).status_code == 202  # the failed send did not use the 1/minute quota


@pytest.mark.django_db
def test_login_creates_the_user_and_returns_a_30_minute_token(
    api, sms_outbox, redis_client
) -> None:
    _send(api)

    response = _login(api, _code_from(sms_outbox))

    assert response.status_code == 200
    body = response.json()
    user = User.objects.get(phone=PHONE)
    assert body["user"] == {"id": user.id, "nick_name": user.nick_name, "icon": ""}
    assert re.fullmatch(r"user_[a-z0-9]{10}", user.nick_name)
    assert not user.has_usable_password()
    assert UserInfo.objects.filter(user=user).exists()
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", body["token"])
    assert 1790 <= redis_client.ttl(keys.login_token(body["token"])) <= 1800
    me = api.get("/api/users/me", HTTP_AUTHORIZATION=f"Bearer {body['token']}")
    assert me.json()["id"] == user.id


@pytest.mark.django_db
def test_login_with_a_known_phone_reuses_the_account(api, sms_outbox, user) -> None:
    _send(api, user.phone)

    response = _login(api, _code_from(sms_outbox), user.phone)

    assert response.json()["user"]["id"] == user.id
    assert User.objects.count() == 1


@pytest.mark.django_db
def test_code_is_single_use(api, sms_outbox) -> None:
    _send(api)
    code = _code_from(sms_outbox)
    assert _login(api, code).status_code == 200

    again = _login(api, code)

    assert again.status_code == 400
    assert again.json()["code"] == "invalid_code"


@pytest.mark.django_db
def test_wrong_code_is_refused_and_five_misses_burn_the_code(api, sms_outbox, redis_client) -> None:
    _send(api)
    code = _code_from(sms_outbox)
    wrong = f"{(int(code) + 1) % 10**6:06d}"

    for _ in range(5):
        response = _login(api, wrong)
        assert response.status_code == 400
        assert response.json()["code"] == "invalid_code"

    assert not redis_client.exists(keys.login_code(PHONE))
    assert _login(api, code).status_code == 400
    assert User.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_a_wrong_code_answers_alike_whether_or_not_the_phone_has_a_live_code(
    api, sms_outbox, redis_client, language
) -> None:
    _send(api)
    wrong = f"{(int(_code_from(sms_outbox)) + 1) % 10**6:06d}"
    burnt, expired, never = "13912345601", "13912345602", "13912345603"
    _send(api, burnt)
    for _ in range(5):
        _login(api, wrong, burnt)
    _send(api, expired)
    redis_client.delete(keys.login_code(expired))

    answers = {
        (r.status_code, r.content)
        for r in (
            api.post(
                "/api/auth/login",
                {"phone": phone, "code": wrong},
                format="json",
                HTTP_ACCEPT_LANGUAGE=language,
            )
            for phone in (PHONE, burnt, expired, never)
        )
    }

    assert len(answers) == 1  # a live code, a burnt one, an expired one, none ever sent
    status, content = answers.pop()
    assert status == 400
    assert b'"code":"invalid_code"' in content.replace(b" ", b"")


@pytest.mark.django_db
def test_four_misses_still_allow_the_right_code(api, sms_outbox) -> None:
    _send(api)
    code = _code_from(sms_outbox)
    for _ in range(4):
        _login(api, f"{(int(code) + 1) % 10**6:06d}")

    assert _login(api, code).status_code == 200


@pytest.mark.django_db
def test_expired_code_is_refused(api, sms_outbox, redis_client) -> None:
    _send(api)
    code = _code_from(sms_outbox)
    redis_client.pexpire(keys.login_code(PHONE), 1)
    wait_until(lambda: not redis_client.exists(keys.login_code(PHONE)))

    response = _login(api, code)

    assert response.status_code == 400
    assert response.json()["code"] == "invalid_code"


@pytest.mark.django_db
@pytest.mark.parametrize("code", ["12345", "1234567", "abcdef", "", None, "12345\n"])
def test_malformed_code_is_a_validation_error(api, sms_outbox, redis_client, code) -> None:
    _send(api)

    response = _login(api, code)

    assert response.status_code == 400
    assert "code" in response.json()["errors"]
    assert redis_client.hget(keys.login_code(PHONE), "attempts") == b"0"
    assert User.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_concurrent_logins_with_one_code_make_one_session(api, sms_outbox, redis_client) -> None:
    _send(api)
    code = _code_from(sms_outbox)

    statuses = run_concurrently(lambda _: _login(api.__class__(), code).status_code, workers=20)

    assert sorted(statuses) == [200] + [400] * 19
    assert User.objects.filter(phone=PHONE).count() == 1
    assert len(list(redis_client.scan_iter("login:token:*"))) == 1


@pytest.mark.django_db
def test_disabled_account_cannot_log_in(api, sms_outbox, user, redis_client) -> None:
    User.objects.filter(pk=user.pk).update(is_active=False)
    _send(api, user.phone)

    response = _login(api, _code_from(sms_outbox), user.phone)

    assert response.status_code == 403
    assert response.json()["code"] == "account_disabled"
    assert not redis_client.exists(keys.user_tokens(user.id))  # no token was issued


@pytest.mark.django_db
def test_phone_taken_as_another_accounts_username_is_a_conflict(api, sms_outbox) -> None:
    User.objects.create(username=PHONE)  # an operator's account named like the phone
    _send(api)

    response = _login(api, _code_from(sms_outbox))

    assert response.status_code == 409
    assert response.json()["code"] == "account_conflict"
    assert User.objects.count() == 1


def test_token_ttl_setting_is_thirty_minutes() -> None:
    assert settings.AUTH_TOKEN_TTL == 1800
    assert settings.AUTH_CODE_TTL == 120
