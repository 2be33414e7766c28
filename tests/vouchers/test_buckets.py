"""One hot sale split into buckets on several shards (vouchers/sale/buckets.py), against
real Redis and a real database: each buyer buys in their home bucket, an empty bucket
refills from the others, "sold out" means every bucket, a move a dead process left
halfway is settled once, and reconcile, the heal, release, the metrics and the admin
count every bucket. (The Cluster's crash test sells a split sale through a killed master:
tests/platform/test_chaos.py.)"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings

from accounts import tokens
from accounts.models import User
from accounts.services import users_ensure
from tests.factories import ShopFactory, UserFactory
from tests.helpers import client_for
from tests.vouchers.sales import drain_all, drain_task_once, start_sale
from toolkit import clock
from vouchers import keys, sale_orders
from vouchers.models import Voucher, VoucherOrder
from vouchers.sale import buckets, reconcile, shard, stock


def _bucket_stock(redis_client, sale: Voucher) -> dict[int, int]:
    """Each bucket's units; a bucket that was never loaded fails the test."""
    raw = {s: redis_client.get(keys.seckill_stock(s, sale.id)) for s in _shards(sale)}
    assert None not in raw.values(), raw
    return {s: int(units) for s, units in raw.items()}


def _shards(sale: Voucher) -> tuple[int, ...]:
    sale.refresh_from_db()
    return shard.placement(sale.id, sale.sale_shards)


def _users_homed_in(sale: Voucher, home: int, count: int) -> list:
    """`count` users whose home bucket is the one in shard `home`."""
    shards, found = _shards(sale), list[User]()
    while len(found) < count:
        user = UserFactory()
        if buckets.home_shard(shards, user.id) == home:
            found.append(user)
    return found


def _grab(user, sale: Voucher):
    return client_for(user).post(f"/api/vouchers/{sale.id}/seckill")


def test_a_sale_chooses_distinct_shards_its_own_first(settings) -> None:
    settings.SECKILL_SHARDS = 4
    assert buckets.choose_shards(6, 3) == [2, 3, 0]  # 6 % 4 = 2, then the next ones
    assert buckets.choose_shards(6, 9) == [2, 3, 0, 1]  # never more than the shards
    assert buckets.choose_shards(6, 1) == [2]
    assert buckets.split(10, 3) == [4, 3, 3]
    assert buckets.split(2, 3) == [1, 1, 0]
    assert shard.placement(6, "") == (2,)
    assert shard.placement(6, "2,3,0") == (2, 3, 0)


def test_a_large_sale_is_split_by_default_only_when_configured(settings) -> None:
    settings.SECKILL_BUCKETS_FROM_STOCK = 0
    assert buckets.default_count(10_000_000) == 1
    settings.SECKILL_BUCKETS_FROM_STOCK, settings.SECKILL_AUTO_BUCKETS = 50_000, 3
    assert buckets.default_count(49_999) == 1
    assert buckets.default_count(50_000) == 3


@pytest.mark.django_db
def test_the_stock_is_split_across_buckets_and_read_as_their_sum(redis_client, fake_clock) -> None:
    sale = start_sale(stock=10, buckets=3)

    assert len(_shards(sale)) == 3
    assert sorted(_bucket_stock(redis_client, sale).values(), reverse=True) == [4, 3, 3]
    assert _shards(sale)[0] == shard.shard_of(sale.id)  # its own shard holds the first
    assert stock.live_stock([sale.id]) == {sale.id: 10}
    listed = client_for(UserFactory()).get(f"/api/shops/{sale.shop_id}/vouchers").json()
    assert [v["remaining"] for v in listed if v["id"] == sale.id] == [10]


@pytest.mark.django_db
def test_a_buyer_buys_in_their_home_bucket_once(redis_client, fake_clock) -> None:
    sale = start_sale(stock=30, buckets=3)
    for home in _shards(sale):
        (buyer,) = _users_homed_in(sale, home, 1)
        before = _bucket_stock(redis_client, sale)

        response = _grab(buyer, sale)
        again = _grab(buyer, sale)

        assert response.status_code == 200
        order_id = int(response.json()["order_id"])
        assert sale_orders.shard_of_order(order_id) == home  # the id names the bucket's shard
        after = _bucket_stock(redis_client, sale)
        assert after == {**before, home: before[home] - 1}  # only the home bucket sold
        assert redis_client.hget(keys.seckill_buyers(home, sale.id), buyer.id) is not None
        assert (again.status_code, again.json()["code"]) == (409, "duplicate_order")
    assert drain_all() == 3
    assert Voucher.objects.get(pk=sale.pk).stock == 27


@pytest.mark.django_db
def test_an_empty_home_bucket_refills_from_the_fullest_other(redis_client, fake_clock) -> None:
    sale = start_sale(stock=8, buckets=3)  # 3, 3, 2
    home, *others = _shards(sale)
    redis_client.set(keys.seckill_stock(home, sale.id), 0)  # as if its buyers took it all
    redis_client.set(keys.seckill_stock(others[0], sale.id), 5)
    (buyer,) = _users_homed_in(sale, home, 1)

    response = _grab(buyer, sale)

    assert response.status_code == 200
    # Half of the fullest bucket (5, rounded up: 3) moved home, and one of those was sold.
    assert _bucket_stock(redis_client, sale) == {home: 2, others[0]: 2, others[1]: 2}
    assert not redis_client.hgetall(keys.seckill_transit(others[0]))  # the move is settled
    assert redis_client.hlen(keys.seckill_moves(home)) == 1


@pytest.mark.django_db
def test_sold_out_is_answered_only_once_every_bucket_is_empty(redis_client, fake_clock) -> None:
    sale = start_sale(stock=3, buckets=3)  # one unit in each bucket
    home = _shards(sale)[0]
    crowd = _users_homed_in(sale, home, 4)  # all in one bucket: two units must move

    statuses = [_grab(user, sale).status_code for user in crowd]

    assert statuses == [200, 200, 200, 409]
    assert _grab(crowd[3], sale).json()["code"] == "sold_out"
    assert set(_bucket_stock(redis_client, sale).values()) == {0}
    assert drain_all() == 3
    assert VoucherOrder.objects.filter(voucher=sale).count() == 3


@pytest.mark.django_db(transaction=True)
def test_a_crowd_buys_exactly_the_stock_of_a_split_sale(redis_client, fake_clock) -> None:
    """600 buyers, two tries each at once from 48 threads, on a sale of 100 in 3 buckets: every
    unit is sold (none stranded in a bucket whose buyers were done), none twice, one each."""
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connection
    from rest_framework.test import APIClient

    sale = start_sale(stock=100, buckets=3)
    users = users_ensure(phones=[f"101{i:08d}" for i in range(600)])
    headers = [f"Bearer {token}" for token in tokens.tokens_issue(users)]

    def attempt(i: int) -> tuple[int, str | None]:
        try:
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=headers[i // 2])
            response = client.post(f"/api/vouchers/{sale.id}/seckill")
            return response.status_code, response.json().get("order_id")
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=48) as pool:  # one user's two tries run at once
        results = list(pool.map(attempt, range(1200)))
    drain_all()

    accepted = [order_id for status, order_id in results if status == 200]
    assert len(accepted) == 100
    assert {status for status, _ in results} <= {200, 409, 429}
    orders = VoucherOrder.objects.filter(voucher=sale)
    assert orders.count() == 100
    assert orders.values("user").distinct().count() == 100
    assert Voucher.objects.get(pk=sale.pk).stock == 0
    assert set(_bucket_stock(redis_client, sale).values()) == {0}
    assert not any(redis_client.hlen(keys.seckill_transit(s)) for s in _shards(sale))


@pytest.mark.django_db
def test_a_move_left_halfway_by_a_dead_mover_is_counted_and_settled_once(
    redis_client, fake_clock
) -> None:
    sale = start_sale(stock=9, buckets=3)  # 3, 3, 3
    giver, receiver, _ = _shards(sale)

    with buckets.moves_lock(sale.id, wait=1):
        transit = buckets.give(sale.id, giver, receiver, 2)  # ... and the mover dies here
    assert transit is not None
    assert transit.units == 2
    assert stock.live_stock([sale.id]) == {sale.id: 7}  # two units in neither bucket
    # Reconcile counts the units in transit: nothing to repair, nothing given twice.
    assert all(drift.clean for drift in reconcile.seckill_drift(voucher_id=sale.id))

    fake_clock.advance(buckets.SETTLE_AFTER_MS / 1000)
    assert buckets.settle_moves(giver) == 1
    assert buckets.settle_moves(giver) == 0
    assert _bucket_stock(redis_client, sale) == {giver: 1, receiver: 5, _: 3}
    # Delivered again by hand (a settle racing the mover): applied once only.
    buckets.deliver(giver, transit)
    assert _bucket_stock(redis_client, sale)[receiver] == 5


@pytest.mark.django_db
def test_the_drain_settles_moves_on_its_recovering_pass(redis_client, fake_clock) -> None:
    sale = start_sale(stock=6, buckets=2)
    giver, receiver = _shards(sale)
    with buckets.moves_lock(sale.id, wait=1):
        buckets.give(sale.id, giver, receiver, 1)
    fake_clock.advance(buckets.SETTLE_AFTER_MS / 1000)

    drain_task_once()

    assert _bucket_stock(redis_client, sale) == {giver: 2, receiver: 4}
    assert not redis_client.hlen(keys.seckill_transit(giver))


@pytest.mark.django_db
def test_reconcile_repairs_a_bucket_that_drifted(redis_client, fake_clock) -> None:
    sale = start_sale(stock=30, buckets=3)
    first, second, third = _shards(sale)
    buyer, other = _users_homed_in(sale, second, 2)
    assert _grab(buyer, sale).status_code == 200
    drain_all()
    redis_client.set(keys.seckill_stock(third, sale.id), 50)  # a hand edit
    redis_client.hdel(keys.seckill_buyers(second, sale.id), buyer.id)  # a lost buyer mark

    drifts = [d for d in reconcile.seckill_drift(voucher_id=sale.id) if not d.clean]
    repaired = reconcile.seckill_repair(sale.id)

    assert {d.shard for d in drifts} == {first, second, third}  # the sum is off everywhere
    assert not repaired.clean
    assert list(repaired.missing_buyers) == [buyer.id]
    assert all(d.clean for d in reconcile.seckill_drift(voucher_id=sale.id))
    assert sum(_bucket_stock(redis_client, sale).values()) == 29  # the database's 29 left
    assert _grab(buyer, sale).json()["code"] == "duplicate_order"  # the mark is back
    assert _grab(other, sale).status_code == 200


@pytest.mark.django_db
def test_a_bucket_whose_redis_lost_its_state_pauses_then_heals_from_the_others(
    redis_client, fake_clock
) -> None:
    """One bucket's shard is rolled back (stale stock, buyer forgotten, marker stale): its
    buyers get 503 while the others sell on; the drain rebuilds it from the database, the
    pending orders and the other buckets' stock, and the sale's sum is right again."""
    sale = start_sale(stock=30, buckets=3)
    _, lost, third = _shards(sale)
    (early,) = _users_homed_in(sale, lost, 1)
    assert _grab(early, sale).status_code == 200
    drain_all()
    (late,) = _users_homed_in(sale, lost, 1)
    (elsewhere,) = _users_homed_in(sale, third, 1)
    redis_client.set(keys.seckill_stock(lost, sale.id), 10)  # the unit sold is back on sale
    redis_client.delete(keys.seckill_buyers(lost, sale.id))
    redis_client.set(keys.seckill_live(lost), "an older run id")

    paused = _grab(late, sale)
    assert paused.status_code == 503
    assert _grab(elsewhere, sale).status_code == 200  # the other buckets sell on

    drain_task_once()

    assert _grab(early, sale).json()["code"] == "duplicate_order"
    assert _grab(late, sale).status_code == 200
    drain_all()
    assert Voucher.objects.get(pk=sale.pk).stock == 27
    assert sum(_bucket_stock(redis_client, sale).values()) == 27
    assert all(d.clean for d in reconcile.seckill_drift(voucher_id=sale.id))


@pytest.mark.django_db(transaction=True)
def test_a_cancelled_order_gives_its_unit_back_to_the_bucket_that_sold_it(
    redis_client, fake_clock
) -> None:
    sale = start_sale(stock=9, buckets=3)
    home = _shards(sale)[2]
    (buyer,) = _users_homed_in(sale, home, 1)
    order_id = int(_grab(buyer, sale).json()["order_id"])
    drain_all()
    before = _bucket_stock(redis_client, sale)

    cancelled = client_for(buyer).post(f"/api/voucher-orders/{order_id}/cancel")

    assert cancelled.status_code == 200

    assert _bucket_stock(redis_client, sale) == {**before, home: before[home] + 1}
    assert redis_client.hget(keys.seckill_buyers(home, sale.id), buyer.id) is None


@pytest.mark.django_db
def test_operators_choose_buckets_when_creating_a_sale_only(staff_api, settings) -> None:
    shop = ShopFactory()
    begin = clock.now() + timedelta(hours=1)
    body = {
        "shop_id": shop.id,
        "title": "split",
        "pay_value": 100,
        "actual_value": 200,
        "type": "seckill",
        "stock": 90,
        "begin_time": begin.isoformat(),
        "end_time": (begin + timedelta(hours=1)).isoformat(),
    }

    created = staff_api.post("/api/vouchers", {**body, "buckets": 3}, format="json")
    too_many = staff_api.post(
        "/api/vouchers", {**body, "buckets": settings.SECKILL_SHARDS + 1}, format="json"
    )
    normal = staff_api.post(
        "/api/vouchers",
        {
            **body,
            "type": "normal",
            "stock": None,
            "begin_time": None,
            "end_time": None,
            "buckets": 2,
        },
        format="json",
    )

    assert created.status_code == 201, created.json()
    voucher_id = created.json()["id"]
    assert staff_api.get(f"/api/vouchers/{voucher_id}").json()["buckets"] == 3
    assert (too_many.status_code, list(too_many.json()["errors"])) == (400, ["buckets"])
    assert (normal.status_code, list(normal.json()["errors"])) == (400, ["buckets"])
    changed = staff_api.patch(f"/api/vouchers/{voucher_id}", {"buckets": 2}, format="json")
    assert (changed.status_code, changed.json()["code"]) == (409, "buckets_fixed")
    same = staff_api.patch(f"/api/vouchers/{voucher_id}", {"buckets": 3}, format="json")
    assert same.status_code == 200
    assert len(shard.placement(voucher_id, Voucher.objects.get(pk=voucher_id).sale_shards)) == 3


@pytest.mark.django_db
def test_metrics_and_the_live_page_show_every_bucket(
    client, admin_client, redis_client, fake_clock
) -> None:
    from tests.metrics import scrape, value

    sale = start_sale(stock=10, buckets=3)
    per_bucket = _bucket_stock(redis_client, sale)

    samples = scrape(client)
    numbers = admin_client.get(f"/admin/vouchers/voucher/{sale.id}/live/numbers/").json()
    page = admin_client.get(f"/admin/vouchers/voucher/{sale.id}/live/")

    voucher = str(sale.id)
    assert value(samples, "dianping_seckill_stock_left", voucher=voucher) == 10
    for bucket, units in per_bucket.items():
        labels = {"voucher": voucher, "shard": str(bucket)}
        assert value(samples, "dianping_seckill_bucket_stock_left", **labels) == units
    assert numbers["stock_left"] == 10
    assert numbers["buckets"] == [{"shard": s, "stock_left": u} for s, u in per_bucket.items()]
    assert ", ".join(map(str, per_bucket)) in page.text
    change = admin_client.get(f"/admin/vouchers/voucher/{sale.id}/change/")
    assert f"3 个，位于分片 {', '.join(map(str, per_bucket))}" in change.text  # zh: the default
    assert 'name="buckets"' not in change.text  # chosen when adding only
    assert 'name="buckets"' in admin_client.get("/admin/vouchers/voucher/add/").text
    assert settings.SECKILL_SHARDS >= 3


@pytest.mark.django_db
def test_units_left_in_a_bucket_awaiting_its_heal_are_not_sold_out(
    redis_client, fake_clock
) -> None:
    """A buyer whose home is empty while the only units left sit in a bucket whose Redis
    lost its state is told to try again (503), not "sold out": once the drain has healed
    that bucket, the same buyer gets a unit from it."""
    sale = start_sale(stock=4, buckets=2)  # 2, 2
    home, lost = _shards(sale)
    redis_client.set(keys.seckill_stock(home, sale.id), 0)  # its buyers took it all
    redis_client.set(keys.seckill_live(lost), "an older run id")
    (buyer,) = _users_homed_in(sale, home, 1)

    paused = _grab(buyer, sale)

    assert paused.status_code == 503
    drain_task_once()  # heals the lost bucket: the database says 4 units are left
    assert _grab(buyer, sale).status_code == 200
    assert sum(_bucket_stock(redis_client, sale).values()) == 3


@pytest.mark.django_db
def test_units_left_in_transit_by_a_dead_mover_are_not_sold_out(redis_client, fake_clock) -> None:
    """Every bucket reads empty while two units sit in a move its mover left halfway (its
    receiver's master died mid-move): a buyer is told to try again (503) while the move
    may still have its mover, then gets a unit from it, delivered by their own request
    rather than the drain's next run; "sold out" comes once nothing is left anywhere."""
    sale = start_sale(stock=4, buckets=2)  # 2, 2
    home, other = _shards(sale)
    redis_client.set(keys.seckill_stock(home, sale.id), 0)  # its buyers took it all
    with buckets.moves_lock(sale.id, wait=1):
        transit = buckets.give(sale.id, other, home, 2)  # ... and the mover dies here
    assert transit is not None
    assert _bucket_stock(redis_client, sale) == {home: 0, other: 0}
    first, second, third = _users_homed_in(sale, other, 3)

    assert _grab(first, sale).status_code == 503  # a move a second old: its mover may live
    assert redis_client.hlen(keys.seckill_transit(other)) == 1  # left to its mover
    assert _bucket_stock(redis_client, sale) == {home: 0, other: 0}
    assert drain_all() == 0  # nothing sold

    fake_clock.advance(buckets.SETTLE_AFTER_MS / 1000)
    assert [_grab(user, sale).status_code for user in (first, second)] == [200, 200]
    assert not redis_client.hlen(keys.seckill_transit(other))  # delivered once, then sold
    assert _bucket_stock(redis_client, sale) == {home: 0, other: 0}
    refused = _grab(third, sale)
    assert (refused.status_code, refused.json()["code"]) == (409, "sold_out")
