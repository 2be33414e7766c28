"""A sale's challenge before the grab (decision 500), against real Redis: the answer is
checked and used inside the grab's one script call, bound to the user and the sale, and
every refusal leaves the stock and the orders as they were."""

from __future__ import annotations

import base64
import time

import pytest
from redis.cluster import key_slot

from accounts import tokens
from tests.factories import UserFactory
from tests.helpers import client_for, run_concurrently
from tests.metrics import scrape, value
from tests.vouchers.sales import drain_all, start_sale
from vouchers import keys
from vouchers.models import Voucher, VoucherOrder
from vouchers.sale import challenge, seckill, shard

CHALLENGES = "dianping_seckill_challenges_total"


@pytest.fixture
def guarded(db, fake_clock):
    return start_sale(stock=10, challenge=True)


def _grab(client, voucher_id: int, answer: dict | None = None):
    body = {"challenge": answer} if answer is not None else None
    return client.post(f"/api/vouchers/{voucher_id}/seckill", body, format="json")


def _issued(user, voucher: Voucher) -> dict:
    """A challenge for `user` and its right answer, as the bench's command knows it."""
    issued = challenge.challenge_issue(user_id=user.id, voucher_id=voucher.id)
    return {"id": issued.id, "answer": str(issued.answer)}


def _nothing_sold(redis_client, sale: Voucher, units: int = 10) -> None:
    assert redis_client.get(shard.stock_key(sale.id)) == str(units).encode()
    assert redis_client.hlen(shard.buyers_key(sale.id)) == 0
    assert redis_client.xlen(keys.seckill_orders(shard.shard_of(sale.id))) == 0


def _open_key(sale: Voucher, user) -> str:
    return challenge.challenge_key((shard.shard_of(sale.id),), sale.id, user.id)


@pytest.mark.django_db
def test_the_right_answer_grabs_and_uses_the_challenge(guarded, redis_client, client) -> None:
    user = UserFactory()
    api = client_for(user)
    before = scrape(client)
    answer = _issued(user, guarded)

    response = _grab(api, guarded.id, answer)

    assert response.status_code == 200, response.json()
    assert redis_client.get(shard.stock_key(guarded.id)) == b"9"
    assert not redis_client.exists(_open_key(guarded, user))  # single-use
    after = scrape(client)
    passed = {"voucher": str(guarded.id), "outcome": "passed"}
    assert value(after, CHALLENGES, **passed) == value(before, CHALLENGES, **passed) + 1
    assert drain_all() == 1
    assert VoucherOrder.objects.filter(user=user, voucher=guarded).count() == 1


@pytest.mark.django_db
def test_a_wrong_answer_is_403_sells_nothing_and_uses_the_challenge(
    guarded, redis_client, client
) -> None:
    user = UserFactory()
    api = client_for(user)
    before = scrape(client)
    answer = _issued(user, guarded)

    wrong = _grab(api, guarded.id, {**answer, "answer": str(int(answer["answer"]) + 1)})

    assert wrong.status_code == 403
    assert wrong.json()["code"] == "challenge_wrong"
    _nothing_sold(redis_client, guarded)
    # One answer per challenge: the right one afterwards is refused too.
    again = _grab(api, guarded.id, answer)
    assert (again.status_code, again.json()["code"]) == (403, "challenge_expired")
    _nothing_sold(redis_client, guarded)
    after = scrape(client)
    for outcome in ("wrong", "expired"):
        labels = {"voucher": str(guarded.id), "outcome": outcome}
        assert value(after, CHALLENGES, **labels) == value(before, CHALLENGES, **labels) + 1


@pytest.mark.django_db
def test_a_grab_without_an_answer_is_403_and_keeps_the_open_challenge(
    guarded, redis_client
) -> None:
    user = UserFactory()
    api = client_for(user)
    answer = _issued(user, guarded)

    response = _grab(api, guarded.id)

    assert (response.status_code, response.json()["code"]) == (403, "challenge_required")
    _nothing_sold(redis_client, guarded)
    assert _grab(api, guarded.id, answer).status_code == 200


@pytest.mark.django_db
def test_a_used_challenge_is_refused(guarded, redis_client) -> None:
    user = UserFactory()
    api = client_for(user)
    answer = _issued(user, guarded)
    assert _grab(api, guarded.id, answer).status_code == 200

    reused = _grab(api, guarded.id, answer)

    # Refused as used before the duplicate check is reached: nothing more is sold.
    assert (reused.status_code, reused.json()["code"]) == (403, "challenge_expired")
    assert redis_client.get(shard.stock_key(guarded.id)) == b"9"


@pytest.mark.django_db
def test_another_users_challenge_is_refused(guarded, redis_client) -> None:
    owner, thief = UserFactory(), UserFactory()
    stolen = _issued(owner, guarded)

    without_own = _grab(client_for(thief), guarded.id, stolen)
    _issued(thief, guarded)  # the thief's own question, left unanswered
    with_own = _grab(client_for(thief), guarded.id, stolen)

    assert (without_own.status_code, without_own.json()["code"]) == (403, "challenge_expired")
    assert (with_own.status_code, with_own.json()["code"]) == (403, "challenge_wrong")
    _nothing_sold(redis_client, guarded)
    assert _grab(client_for(owner), guarded.id, stolen).status_code == 200  # still the owner's


@pytest.mark.django_db
def test_another_sales_challenge_is_refused(guarded, redis_client) -> None:
    other_sale = start_sale(stock=10, challenge=True)
    user = UserFactory()
    api = client_for(user)
    for_other = _issued(user, other_sale)
    _issued(user, guarded)  # one open here too, with another answer

    response = _grab(api, guarded.id, for_other)

    assert (response.status_code, response.json()["code"]) == (403, "challenge_wrong")
    _nothing_sold(redis_client, guarded)


@pytest.mark.django_db
def test_an_expired_challenge_is_refused(guarded, redis_client, settings) -> None:
    settings.SECKILL_CHALLENGE_TTL = 1
    user = UserFactory()
    answer = _issued(user, guarded)
    deadline = time.monotonic() + 5
    while redis_client.exists(_open_key(guarded, user)):  # Redis expires it on its own clock
        assert time.monotonic() < deadline, "the challenge never expired"
        time.sleep(0.05)

    response = _grab(client_for(user), guarded.id, answer)

    assert (response.status_code, response.json()["code"]) == (403, "challenge_expired")
    _nothing_sold(redis_client, guarded)


@pytest.mark.django_db
def test_the_endpoint_answers_a_png_and_stores_only_an_hmac(guarded, redis_client) -> None:
    user = UserFactory()

    response = client_for(user).get(f"/api/vouchers/{guarded.id}/challenge")

    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store"
    body = response.json()
    assert set(body) == {"id", "image", "expires_in"}
    prefix = "data:image/png;base64,"
    assert body["image"].startswith(prefix)
    assert base64.b64decode(body["image"][len(prefix) :])[:8] == b"\x89PNG\r\n\x1a\n"
    stored = redis_client.get(_open_key(guarded, user)).decode()
    assert len(stored) == 64
    assert body["id"] not in stored
    assert 0 < redis_client.ttl(_open_key(guarded, user)) <= body["expires_in"]
    answers = [str(n) for n in range(200)]
    digests = {challenge.challenge_digest(guarded.id, body["id"], a): a for a in answers}
    assert stored in digests  # what a grab with the right answer sends


@pytest.mark.django_db
def test_the_endpoint_needs_a_login_and_a_sale_with_a_challenge(guarded, api) -> None:
    plain = start_sale(stock=5)
    user_api = client_for(UserFactory())

    assert api.get(f"/api/vouchers/{guarded.id}/challenge").status_code == 401
    off = user_api.get(f"/api/vouchers/{plain.id}/challenge")
    assert (off.status_code, off.json()["code"]) == (409, "challenge_off")
    assert user_api.get("/api/vouchers/999999/challenge").status_code == 404


@pytest.mark.django_db
def test_a_sale_without_a_challenge_ignores_one_sent(db, fake_clock, redis_client) -> None:
    plain = start_sale(stock=5)

    response = _grab(client_for(UserFactory()), plain.id, {"id": "x", "answer": "1"})

    assert response.status_code == 200
    assert redis_client.get(shard.stock_key(plain.id)) == b"4"


@pytest.mark.django_db
def test_a_bucketed_sale_checks_the_challenge_in_the_buyers_home_bucket(
    db, fake_clock, redis_client
) -> None:
    sale = start_sale(stock=10, buckets=2, challenge=True)
    window = seckill.sale_window(sale.id)
    assert window is not None
    assert len(window.shards) == 2
    users = [UserFactory() for _ in range(4)]

    statuses = [_grab(client_for(u), sale.id, _issued(u, sale)).status_code for u in users]

    assert statuses == [200] * 4
    for user in users:
        home = seckill.buckets.home_shard(window.shards, user.id)
        key = challenge.challenge_key(window.shards, sale.id, user.id)
        assert key_slot(key.encode()) == key_slot(keys.seckill_stock(home, sale.id).encode())


def test_every_key_of_a_grab_with_a_challenge_is_in_one_slot() -> None:
    for shard_no in range(4):
        grab_keys = [
            keys.seckill_stock(shard_no, 7),
            keys.seckill_buyers(shard_no, 7),
            keys.seckill_orders(shard_no),
            keys.seckill_pending(shard_no),
            keys.seckill_id_counter(shard_no, "20261127"),
            keys.seckill_funnel(shard_no, 42),
            keys.seckill_live(shard_no),
            keys.seckill_challenge(shard_no, 7, 42),
        ]
        assert len({key_slot(k.encode()) for k in grab_keys}) == 1


@pytest.mark.django_db(transaction=True)
def test_many_buyers_with_valid_challenges_never_oversell(fake_clock, redis_client) -> None:
    from rest_framework.test import APIClient

    from accounts.services import users_ensure

    sale = start_sale(stock=20, challenge=True)
    users = users_ensure(phones=[f"101{i:08d}" for i in range(80)])
    headers = [f"Bearer {token}" for token in tokens.tokens_issue(users)]
    answers = [_issued(u, sale) for u in users]

    def attempt(i: int) -> int:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=headers[i])
        return _grab(client, sale.id, answers[i]).status_code

    statuses = run_concurrently(attempt, workers=len(users))
    drain_all()

    assert statuses.count(200) == 20
    assert set(statuses) <= {200, 409}
    assert redis_client.get(shard.stock_key(sale.id)) == b"0"
    orders = VoucherOrder.objects.filter(voucher=sale)
    assert orders.count() == 20
    assert orders.values("user").distinct().count() == 20
    assert Voucher.objects.get(pk=sale.pk).stock == 0


@pytest.mark.django_db(transaction=True)  # the write's after-commit eviction runs
def test_staff_turn_the_challenge_on_in_the_admin_and_the_api(admin_client, staff_api) -> None:
    from tests.factories import VoucherFactory

    sale = VoucherFactory()  # a sale starting in an hour
    user_api = client_for(UserFactory())
    page = admin_client.get(f"/admin/vouchers/voucher/{sale.id}/change/")
    assert page.status_code == 200
    assert b'name="challenge"' in page.content
    assert user_api.get(f"/api/vouchers/{sale.id}/challenge").status_code == 409

    patched = staff_api.patch(f"/api/vouchers/{sale.id}", {"challenge": True}, format="json")

    assert patched.status_code == 200
    assert patched.json()["challenge"] is True
    assert user_api.get(f"/api/vouchers/{sale.id}/challenge").status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize("typed", ["{answer}", " {answer} ", "0{answer}", "+{answer}", "int"])
def test_an_answer_is_the_number_however_it_is_typed(guarded, redis_client, typed) -> None:
    user = UserFactory()
    issued = _issued(user, guarded)
    sent = int(issued["answer"]) if typed == "int" else typed.format(answer=issued["answer"])

    response = _grab(client_for(user), guarded.id, {"id": issued["id"], "answer": sent})

    assert response.status_code == 200, response.json()


@pytest.mark.django_db
@pytest.mark.parametrize("sent", [True, None, 7.5, "seven", "1234567", [7]])
def test_an_answer_that_is_no_whole_number_is_400_and_keeps_the_challenge(
    guarded, redis_client, sent
) -> None:
    user = UserFactory()
    issued = _issued(user, guarded)

    response = _grab(client_for(user), guarded.id, {"id": issued["id"], "answer": sent})

    assert response.status_code == 400, response.json()
    assert redis_client.exists(_open_key(guarded, user))  # not used up: nothing was checked
    _nothing_sold(redis_client, guarded)


@pytest.mark.django_db
def test_fetching_challenges_is_limited_per_user(guarded, settings) -> None:
    """Each fetch draws a picture and replaces the open challenge: past the user's rate
    a fetch is 429 and draws nothing."""
    user = UserFactory()
    api = client_for(user)
    rate = int(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["challenge_user"].split("/")[0])

    answers = [
        api.get(f"/api/vouchers/{guarded.id}/challenge").status_code for _ in range(rate + 1)
    ]

    assert answers == [200] * rate + [429]


@pytest.mark.django_db
def test_a_challenge_id_longer_than_the_schema_allows_is_400_and_keeps_the_challenge(
    guarded, redis_client
) -> None:
    user = UserFactory()
    issued = _issued(user, guarded)

    response = _grab(client_for(user), guarded.id, {"id": "x" * 65, "answer": issued["answer"]})

    assert response.status_code == 400, response.json()
    assert redis_client.exists(_open_key(guarded, user))
    _nothing_sold(redis_client, guarded)


@pytest.mark.django_db
def test_a_right_answer_grabs_when_the_stock_must_be_loaded_first(guarded, redis_client) -> None:
    """The script uses the challenge before it reads the stock: the grab that finds the
    stock not loaded retries after loading it without the challenge, and succeeds."""
    user = UserFactory()
    answer = _issued(user, guarded)
    redis_client.delete(shard.stock_key(guarded.id))  # Redis lost it, or it was never loaded

    response = _grab(client_for(user), guarded.id, answer)

    assert response.status_code == 200, response.json()
    assert redis_client.get(shard.stock_key(guarded.id)) == b"9"
