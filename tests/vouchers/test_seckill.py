"""The flash sale against real Redis and a real database, with real concurrency."""

from __future__ import annotations

from datetime import timedelta

import pytest

from accounts import keys as accounts_keys
from accounts import tokens
from tests.factories import UserFactory, VoucherFactory
from tests.helpers import client_for, run_concurrently
from tests.vouchers.sales import drain_all, start_sale
from toolkit import clock, runtime
from vouchers import keys, services
from vouchers.coupons import jobs
from vouchers.models import Voucher, VoucherOrder
from vouchers.sale import shard


@pytest.fixture
def on_sale(db, fake_clock):
    return start_sale(stock=100)


def _buy(client, voucher_id: int, authorization: str | None = None):
    extra = {"HTTP_AUTHORIZATION": authorization} if authorization else {}
    return client.post(f"/api/vouchers/{voucher_id}/seckill", **extra)


@pytest.mark.django_db
def test_a_buyer_gets_an_order_id_and_then_the_order(user, user_api, on_sale, redis_client) -> None:
    response = _buy(user_api, on_sale.id)

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert list(body) == ["order_id"]
    assert isinstance(body["order_id"], str)  # 63-bit ids travel as strings
    order_id = int(body["order_id"])
    assert redis_client.get(shard.stock_key(on_sale.id)) == b"99"
    pending = user_api.get(f"/api/voucher-orders/{order_id}").json()
    assert pending["status"] == "pending"
    assert pending["id"] == str(order_id)

    assert drain_all() == 1

    persisted = user_api.get(f"/api/voucher-orders/{order_id}").json()
    assert (persisted["status"], persisted["voucher_id"]) == ("unpaid", on_sale.id)
    assert Voucher.objects.get(pk=on_sale.pk).stock == 99


@pytest.mark.django_db
def test_second_attempt_is_a_duplicate(user_api, on_sale, redis_client) -> None:
    assert _buy(user_api, on_sale.id).status_code == 200

    again = _buy(user_api, on_sale.id)

    assert again.status_code == 409
    assert again.json()["code"] == "duplicate_order"
    # The refused attempt took no unit, queued no order and recorded no second buyer.
    assert redis_client.get(shard.stock_key(on_sale.id)) == b"99"
    assert redis_client.xlen(keys.seckill_orders(shard.shard_of(on_sale.id))) == 1
    assert redis_client.hlen(shard.buyers_key(on_sale.id)) == 1


@pytest.mark.django_db
def test_other_users_cannot_see_an_order(user_api, on_sale) -> None:
    order_id = _buy(user_api, on_sale.id).json()["order_id"]
    other = client_for(UserFactory())

    assert other.get(f"/api/voucher-orders/{order_id}").status_code == 404
    drain_all()
    assert other.get(f"/api/voucher-orders/{order_id}").status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("window", "code"),
    [
        ({"begin_time": +1, "end_time": +2}, "not_started"),
        ({"begin_time": -2, "end_time": -1}, "ended"),
        ({"begin_time": -1, "end_time": +1, "status": "void"}, "ended"),
    ],
)
def test_outside_the_window_nothing_is_written(
    user_api, redis_client, fake_clock, window, code
) -> None:
    now = clock.now()
    voucher = VoucherFactory(
        begin_time=now + timedelta(hours=window["begin_time"]),
        end_time=now + timedelta(hours=window["end_time"]),
        status=window.get("status", "pending"),
    )
    redis_client.set(shard.stock_key(voucher.id), 100)

    response = _buy(user_api, voucher.id)

    assert response.status_code == 409
    assert response.json()["code"] == code
    assert redis_client.get(shard.stock_key(voucher.id)) == b"100"
    assert not redis_client.exists(keys.seckill_buyers(shard.shard_of(voucher.id), voucher.id))


@pytest.mark.django_db
def test_unknown_voucher_normal_voucher_and_anonymous_caller(
    api, user_api, on_sale, redis_client, settings
) -> None:
    normal = VoucherFactory(type="normal", stock=0, begin_time=None, end_time=None)

    assert _buy(user_api, 424242).status_code == 404
    assert _buy(user_api, normal.id).json()["code"] == "not_a_sale"  # 409: claim it instead
    assert _buy(api, on_sale.id).status_code == 401
    assert _buy(api, on_sale.id, "Bearer " + "x" * 43).status_code == 401

    # Nothing was sold, queued or counted against anyone.
    assert redis_client.get(shard.stock_key(on_sale.id)) == b"100"
    assert not redis_client.exists(shard.buyers_key(on_sale.id))
    shards = range(settings.SECKILL_SHARDS)
    assert all(redis_client.xlen(keys.seckill_orders(s)) == 0 for s in shards)


@pytest.mark.django_db
def test_every_answer_refreshes_the_token_and_a_bad_token_is_401_first(
    api, user, on_sale, redis_client, settings
) -> None:
    token = tokens.token_issue(user)
    token_key = accounts_keys.login_token(token)
    bogus = "Bearer " + "y" * 43

    for voucher_id, status in ((on_sale.id, 200), (on_sale.id, 409), (424242, 404)):
        redis_client.expire(token_key, 5)
        assert _buy(api, voucher_id, f"Bearer {token}").status_code == status
        # The script (or the early-exit path) pushed the TTL back to the full term.
        assert redis_client.ttl(token_key) > settings.AUTH_TOKEN_TTL - 5

    # A token that is not live is 401 whatever the voucher would have answered.
    assert _buy(api, 424242, bogus).status_code == 401
    assert _buy(api, on_sale.id, bogus).status_code == 401
    assert redis_client.get(shard.stock_key(on_sale.id)) == b"99"


@pytest.mark.django_db
def test_a_sale_whose_stock_was_never_preheated_loads_it_on_demand(
    user_api, redis_client, on_sale
) -> None:
    redis_client.delete(shard.stock_key(on_sale.id))

    assert _buy(user_api, on_sale.id).status_code == 200
    assert redis_client.get(shard.stock_key(on_sale.id)) == b"99"


@pytest.mark.django_db(transaction=True)
def test_two_thousand_users_three_tries_each_buy_exactly_the_stock(on_sale, redis_client) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connection
    from rest_framework.test import APIClient

    from accounts.services import users_ensure

    users = users_ensure(phones=[f"100{i:08d}" for i in range(2000)])
    headers = [f"Bearer {token}" for token in tokens.tokens_issue(users)]

    def attempt(i: int) -> tuple[int, str | None]:
        # Attempts i, i+1, i+2 are one user's three tries, running at the same time.
        try:
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=headers[i // 3])
            response = _buy(client, on_sale.id)
            return response.status_code, response.json().get("order_id")
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=48) as pool:
        results = list(pool.map(attempt, range(6000)))
    drain_all()

    accepted = [str(order_id) for status, order_id in results if status == 200]
    assert len(accepted) == 100
    assert {status for status, _ in results} <= {200, 409, 429}
    orders_in_db = VoucherOrder.objects.filter(voucher=on_sale)
    assert orders_in_db.count() == 100
    assert orders_in_db.values("user").distinct().count() == 100
    assert sorted(str(i) for i in orders_in_db.values_list("id", flat=True)) == sorted(accepted)
    assert Voucher.objects.get(pk=on_sale.pk).stock == 0
    assert redis_client.get(shard.stock_key(on_sale.id)) == b"0"


@pytest.mark.django_db(transaction=True)
def test_one_user_with_200_concurrent_requests_gets_one_order(on_sale, settings) -> None:
    from rest_framework.test import APIClient

    settings.SECKILL_FUNNEL_CAPACITY = 1000  # let every request reach the sale itself
    user = UserFactory()
    token = tokens.token_issue(user)

    def attempt(_: int) -> int:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
        return _buy(client, on_sale.id).status_code

    statuses = run_concurrently(attempt, workers=200)
    drain_all()

    assert statuses.count(200) == 1
    assert statuses.count(409) == 199
    assert VoucherOrder.objects.filter(user=user).count() == 1


@pytest.mark.django_db(transaction=True)  # the void's after-commit eviction runs
def test_voiding_a_live_sale_stops_it_at_once_and_writes_nothing(
    on_sale, redis_client, fake_clock
) -> None:
    first, second = UserFactory(), UserFactory()
    assert _buy(client_for(first), on_sale.id).status_code == 200  # the window is cached now
    shard_no = shard.shard_of(on_sale.id)

    services.voucher_void(voucher_id=on_sale.id)
    refused = _buy(client_for(second), on_sale.id)

    assert (refused.status_code, refused.json()["code"]) == (409, "ended")
    assert redis_client.get(shard.stock_key(on_sale.id)) == b"99"
    assert redis_client.hkeys(shard.buyers_key(on_sale.id)) == [str(first.id).encode()]
    assert redis_client.xlen(keys.seckill_orders(shard_no)) == 1


@pytest.mark.django_db
def test_the_funnel_refuses_a_hammering_user(user_api, on_sale, fake_clock) -> None:
    responses = [_buy(user_api, on_sale.id) for _ in range(8)]

    statuses = [r.status_code for r in responses]
    assert statuses[0] == 200
    assert statuses[1:5] == [409] * 4  # duplicates, still within the burst of 5
    assert statuses[5:] == [429] * 3
    assert responses[-1]["Retry-After"] == "1"  # one attempt leaks out every 0.5 s
    assert responses[-1].json()["code"] == "throttled"
    fake_clock.advance(0.5)
    assert _buy(user_api, on_sale.id).status_code == 409


@pytest.mark.django_db
def test_pay_then_the_timeout_does_not_cancel(
    user_api, on_sale, fake_clock, django_capture_on_commit_callbacks
) -> None:
    order_id = _buy(user_api, on_sale.id).json()["order_id"]
    early = user_api.post(f"/api/voucher-orders/{order_id}/pay")
    assert early.status_code == 409
    assert early.json()["code"] == "order_pending"
    drain_all()
    assert jobs.order_jobs().pending() == 1

    with django_capture_on_commit_callbacks(execute=True):
        paid = user_api.post(f"/api/voucher-orders/{order_id}/pay")
    assert paid.status_code == 200
    assert jobs.order_jobs().pending() == 0  # paying withdrew the timeout
    assert paid.json()["status"] == "paid"
    assert user_api.post(f"/api/voucher-orders/{order_id}/pay").status_code == 200  # idempotent

    fake_clock.advance(16 * 60)
    assert jobs.settle_due_orders() == 0
    assert VoucherOrder.objects.get(pk=order_id).status == "paid"


@pytest.mark.django_db(transaction=True)
def test_unpaid_orders_are_cancelled_once_and_the_unit_comes_back(
    on_sale, redis_client, fake_clock
) -> None:
    buyers = [UserFactory() for _ in range(3)]
    clients = [client_for(buyer) for buyer in buyers]
    for client in clients:
        assert _buy(client, on_sale.id).status_code == 200
    drain_all()
    assert redis_client.get(shard.stock_key(on_sale.id)) == b"97"

    fake_clock.advance(15 * 60 + 1)
    cancelled = run_concurrently(lambda _: jobs.settle_due_orders(), workers=4)

    assert sum(cancelled) == 3  # each order cancelled exactly once across workers
    assert VoucherOrder.objects.filter(status="cancelled").count() == 3
    assert Voucher.objects.get(pk=on_sale.pk).stock == 100
    assert redis_client.get(shard.stock_key(on_sale.id)) == b"100"
    assert _buy(clients[0], on_sale.id).status_code == 200  # may buy again
    drain_all()
    assert VoucherOrder.objects.filter(user=buyers[0]).count() == 2


@pytest.mark.django_db(transaction=True)
def test_a_repeated_release_never_frees_the_buyers_next_order(
    on_sale, redis_client, fake_clock
) -> None:
    buyer = UserFactory()
    client = client_for(buyer)
    assert _buy(client, on_sale.id).status_code == 200
    drain_all()
    fake_clock.advance(15 * 60 + 1)
    assert jobs.settle_due_orders() == 1
    first = VoucherOrder.objects.get(user=buyer)
    assert _buy(client, on_sale.id).status_code == 200  # buys again
    drain_all()

    assert not jobs.order_release(first)  # a late retry of the first release

    assert redis_client.get(shard.stock_key(on_sale.id)) == b"99"
    assert _buy(client, on_sale.id).json()["code"] == "duplicate_order"


@pytest.mark.django_db(transaction=True)
def test_a_failed_release_is_retried_until_redis_agrees(
    on_sale, redis_client, fake_clock, monkeypatch
) -> None:
    client = client_for(UserFactory())
    assert _buy(client, on_sale.id).status_code == 200
    drain_all()
    fake_clock.advance(15 * 60 + 1)
    real_release = jobs.order_release

    def redis_blip(order):
        raise ConnectionError("redis went away")

    monkeypatch.setattr(jobs, "order_release", redis_blip)
    jobs.settle_due_orders()
    assert redis_client.get(shard.stock_key(on_sale.id)) == b"99"  # not yet given back

    monkeypatch.setattr(jobs, "order_release", real_release)
    fake_clock.advance(61)  # the unacked job's lease runs out
    jobs.settle_due_orders()

    assert redis_client.get(shard.stock_key(on_sale.id)) == b"100"
    assert Voucher.objects.get(pk=on_sale.pk).stock == 100
    assert jobs.order_jobs().pending() == 0


@pytest.mark.django_db
def test_a_reset_forgets_this_processs_sold_out_flags(fake_clock, redis_client) -> None:
    """The "sold out" a process remembers for a second is its own copy of Redis's stock:
    runtime.reset() (between tests) and a fork forget it, like the other local copies."""
    sale = start_sale(stock=1)
    assert _buy(client_for(UserFactory()), sale.id).status_code == 200
    assert _buy(client_for(UserFactory()), sale.id).json()["code"] == "sold_out"
    redis_client.set(shard.stock_key(sale.id), 1)  # a unit back, as a cancellation gives

    runtime.reset()

    assert _buy(client_for(UserFactory()), sale.id).status_code == 200  # not the old flag
