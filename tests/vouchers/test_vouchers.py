"""Vouchers: staff writes and stock rules, sale-status jobs, preheat, and the read lists."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.core.management import call_command

from tests.factories import ShopFactory, VoucherFactory
from toolkit import clock
from vouchers import services
from vouchers.models import Voucher
from vouchers.sale import shard, stock


def _iso(moment: datetime) -> str:
    return moment.isoformat()


def _seckill_payload(shop_id: int, **overrides) -> dict:
    now = clock.now()
    body = {
        "shop_id": shop_id,
        "title": "¥100 for ¥59",
        "sub_title": "weekdays",
        "rules": "1 each",
        "pay_value": 5900,
        "actual_value": 10000,
        "type": "seckill",
        "stock": 100,
        "begin_time": _iso(now + timedelta(hours=1)),
        "end_time": _iso(now + timedelta(hours=3)),
        "valid_days": 30,
    }
    return {**body, **overrides}


@pytest.mark.django_db(transaction=True)
def test_staff_create_a_flash_sale_and_its_stock_reaches_redis(staff_api, redis_client) -> None:
    shop = ShopFactory()

    response = staff_api.post("/api/vouchers", _seckill_payload(shop.id), format="json")

    assert response.status_code == 201
    body = response.json()
    assert (body["status"], body["stock"], body["shop_id"]) == ("pending", 100, shop.id)
    assert redis_client.get(shard.stock_key(body["id"])) == b"100"


@pytest.mark.django_db
def test_normal_voucher_is_active_and_has_no_redis_stock(
    staff_api, redis_client, django_capture_on_commit_callbacks
) -> None:
    shop = ShopFactory()
    body = {"shop_id": shop.id, "title": "10% off", "pay_value": 0, "actual_value": 1000}

    with django_capture_on_commit_callbacks(execute=True):  # where the stock load would run
        response = staff_api.post("/api/vouchers", body, format="json")

    assert response.status_code == 201
    assert response.json()["status"] == "active"
    assert redis_client.get(shard.stock_key(response.json()["id"])) is None


@pytest.mark.django_db
@pytest.mark.parametrize(
    "overrides",
    [
        {"begin_time": None}, {"end_time": "2020-01-01T00:00:00+08:00"}, {"shop_id": 2**70},
        {"stock": -1}, {"pay_value": -5}, {"type": "mystery"}, {"title": ""}, {"valid_days": 0},
        {"begin_time": "tomorrow"}, {"begin_time": "0450-07-21T11:17:41Z"},
        {"end_time": "2999-01-01T00:00:00Z"}, {"begin_time": "2030-01-01T10:00:00"},
        {"begin_time": "2030-02-30T10:00:00Z"}, {"begin_time": 1893456000}, {"stock": "5"},
        {"stock": True}, {"type": 1}, {"rules": "\x00"}, {"sub_title": "\u2066x"},
    ],
)  # fmt: skip
def test_bad_voucher_input_is_400_and_writes_nothing(staff_api, overrides) -> None:
    shop = ShopFactory()

    response = staff_api.post(
        "/api/vouchers", {**_seckill_payload(shop.id), **overrides}, format="json"
    )

    assert response.status_code == 400
    assert Voucher.objects.count() == 0


@pytest.mark.django_db
def test_a_voucher_of_a_shop_that_does_not_exist_is_409(staff_api) -> None:
    response = staff_api.post("/api/vouchers", _seckill_payload(424242), format="json")

    assert (response.status_code, response.json()["code"]) == (409, "shop_not_found")
    assert Voucher.objects.count() == 0


@pytest.mark.django_db
def test_only_staff_write_vouchers(api, user_api) -> None:
    shop = ShopFactory()
    voucher = VoucherFactory(shop=shop)

    assert api.post("/api/vouchers", _seckill_payload(shop.id), format="json").status_code == 401
    assert (
        user_api.post("/api/vouchers", _seckill_payload(shop.id), format="json").status_code == 403
    )
    assert (
        user_api.patch(f"/api/vouchers/{voucher.id}", {"stock": 5}, format="json").status_code
        == 403
    )
    assert Voucher.objects.get(pk=voucher.pk).stock == 100
    assert Voucher.objects.count() == 1  # the refused creations made nothing


@pytest.mark.django_db(transaction=True)
def test_stock_can_change_until_the_sale_starts(staff_api, redis_client, fake_clock) -> None:
    voucher = VoucherFactory()
    stock.stock_load([voucher])

    before = staff_api.patch(f"/api/vouchers/{voucher.id}", {"stock": 150}, format="json")
    assert before.status_code == 200
    assert redis_client.get(shard.stock_key(voucher.id)) == b"150"

    fake_clock.advance(2 * 3600)  # the sale is on
    redis_client.set(shard.stock_key(voucher.id), 120)  # 30 units sold
    after = staff_api.patch(f"/api/vouchers/{voucher.id}", {"stock": 500}, format="json")

    assert after.status_code == 409
    assert after.json()["code"] == "sale_started"
    assert Voucher.objects.get(pk=voucher.pk).stock == 150
    assert redis_client.get(shard.stock_key(voucher.id)) == b"120"
    renamed = staff_api.patch(f"/api/vouchers/{voucher.id}", {"title": "Renamed"}, format="json")
    assert renamed.status_code == 200
    assert redis_client.get(shard.stock_key(voucher.id)) == b"120"  # never resurrected


@pytest.mark.django_db
def test_patch_of_an_unknown_voucher_is_404(staff_api) -> None:
    assert staff_api.patch("/api/vouchers/424242", {"stock": 1}, format="json").status_code == 404


@pytest.mark.django_db
def test_stock_load_overwrites_pending_and_never_resurrects_active(
    redis_client, fake_clock
) -> None:
    pending = VoucherFactory(stock=10)
    active = VoucherFactory(stock=10, begin_time=clock.now() - timedelta(minutes=5))
    ended = VoucherFactory(
        stock=10,
        begin_time=clock.now() - timedelta(days=2),
        end_time=clock.now() - timedelta(days=1),
    )
    redis_client.set(shard.stock_key(pending.id), 3)
    redis_client.set(shard.stock_key(active.id), 3)

    outcome = stock.stock_load([pending, active, ended])

    assert outcome == {pending.id: "overwritten", active.id: "kept", ended.id: "skipped"}
    assert redis_client.get(shard.stock_key(pending.id)) == b"10"
    assert redis_client.get(shard.stock_key(active.id)) == b"3"
    assert redis_client.get(shard.stock_key(ended.id)) is None


@pytest.mark.django_db
def test_status_job_moves_sales_along_the_clock(fake_clock) -> None:
    voucher = VoucherFactory()
    void = VoucherFactory(status=Voucher.Status.VOID)

    assert services.activity_statuses_update() == {"active": 0, "ended": 0}
    fake_clock.advance(3600)
    assert services.activity_statuses_update() == {"active": 1, "ended": 0}
    fake_clock.advance(2 * 3600)
    assert services.activity_statuses_update() == {"active": 0, "ended": 1}

    assert Voucher.objects.get(pk=voucher.pk).status == "ended"
    assert Voucher.objects.get(pk=void.pk).status == "void"


@pytest.mark.django_db
def test_shop_vouchers_show_live_stock_and_real_time_status(api, redis_client, fake_clock) -> None:
    shop = ShopFactory()
    sale = VoucherFactory(shop=shop)
    plain = VoucherFactory(shop=shop, type="normal", stock=None, begin_time=None, end_time=None)
    limited = VoucherFactory(shop=shop, type="normal", stock=7, begin_time=None, end_time=None)
    VoucherFactory(shop=shop, status=Voucher.Status.VOID)
    redis_client.set(shard.stock_key(sale.id), 42)
    fake_clock.advance(3600 + 1)  # the sale started; no job has run yet

    body = api.get(f"/api/shops/{shop.id}/vouchers").json()

    assert [(v["id"], v["status"], v["remaining"]) for v in body] == [
        (sale.id, "active", 42),
        (plain.id, "active", None),  # unlimited
        (limited.id, "active", 7),  # the database's count
    ]


@pytest.mark.django_db
def test_activities_work_before_any_preheat_and_split_by_tab(api, fake_clock) -> None:
    now = clock.now()
    on_now = VoucherFactory(begin_time=now - timedelta(hours=1))
    soon = VoucherFactory(begin_time=now + timedelta(days=2))
    sooner = VoucherFactory(begin_time=now + timedelta(days=1))
    VoucherFactory(begin_time=now + timedelta(days=40))  # beyond the 30-day horizon
    VoucherFactory(begin_time=now - timedelta(hours=1), status=Voucher.Status.VOID)

    seizing = api.get("/api/vouchers/activities?tab=seizing").json()
    upcoming = api.get("/api/vouchers/activities?tab=upcoming").json()

    assert [v["id"] for v in seizing] == [on_now.id]
    assert [v["id"] for v in upcoming] == [sooner.id, soon.id]
    # No tab is the seizing tab, the one the client opens on.
    assert api.get("/api/vouchers/activities").json() == seizing


@pytest.mark.django_db
def test_preheated_activities_report_real_time_status(api, redis_client, fake_clock) -> None:
    voucher = VoucherFactory()
    assert services.activities_preheat() == 1
    assert redis_client.get(shard.stock_key(voucher.id)) == b"100"

    fake_clock.advance(3600 + 1)  # the cached list still says "pending"

    seizing = api.get("/api/vouchers/activities?tab=seizing").json()
    assert [(v["id"], v["status"], v["remaining"]) for v in seizing] == [
        (voucher.id, "active", 100)
    ]


@pytest.mark.django_db
@pytest.mark.parametrize("query", ["?tab=all", "?tab=SEIZING"])
def test_activities_need_a_known_tab(api, query) -> None:
    response = api.get(f"/api/vouchers/activities{query}")

    assert response.status_code == 400
    assert "tab" in response.json()["errors"]


@pytest.mark.django_db
def test_preload_stock_command(redis_client, capsys) -> None:
    voucher = VoucherFactory(stock=7)

    call_command("preload_stock")

    assert redis_client.get(shard.stock_key(voucher.id)) == b"7"
    assert "overwritten: 1" in capsys.readouterr().out


@pytest.mark.django_db
def test_admin_lists_redis_stock_and_freezes_stock_after_start(
    admin_client, redis_client, monkeypatch
) -> None:
    started = VoucherFactory(begin_time=clock.now() - timedelta(minutes=1))
    unloaded = VoucherFactory()  # pending, never preheated
    VoucherFactory(type="normal", stock=0, begin_time=None, end_time=None)
    redis_client.set(shard.stock_key(started.id), 37)
    fetched = []
    real_live_stock = stock.live_stock

    def counted(ids):
        fetched.append(sorted(ids))
        return real_live_stock(ids)

    monkeypatch.setattr(stock, "live_stock", counted)

    changelist = admin_client.get("/admin/vouchers/voucher/")
    change = admin_client.get(f"/admin/vouchers/voucher/{started.id}/change/")

    assert changelist.status_code == 200
    # Units left in Redis over the stock.
    assert b'class="field-stock_left">37 / 100<' in changelist.content
    assert 'class="field-stock_left">未加载 / 100<' in changelist.content.decode()
    assert b'class="field-stock_left">0<' in changelist.content  # a normal voucher
    assert fetched == [sorted([started.id, unloaded.id])]  # one batch for the whole page
    assert b'name="stock"' not in change.content  # read-only once the sale is on


@pytest.mark.django_db
def test_reloading_a_pending_looking_sale_never_overwrites_sold_units(
    redis_client, fake_clock
) -> None:
    voucher = VoucherFactory(stock=10)
    redis_client.set(shard.stock_key(voucher.id), 7)
    redis_client.hset(shard.buyers_key(voucher.id), 1, "1:16")  # someone already bought

    assert stock.stock_load([voucher]) == {voucher.id: "sold"}
    assert redis_client.get(shard.stock_key(voucher.id)) == b"7"


@pytest.mark.django_db
def test_the_sale_window_is_frozen_once_the_sale_started(staff_api, fake_clock) -> None:
    voucher = VoucherFactory(begin_time=clock.now() - timedelta(minutes=1))
    later = _iso(clock.now() + timedelta(minutes=30))  # still before end_time

    response = staff_api.patch(f"/api/vouchers/{voucher.id}", {"begin_time": later}, format="json")

    assert response.status_code == 409
    assert response.json()["code"] == "sale_started"
    assert Voucher.objects.get(pk=voucher.pk).begin_time == voucher.begin_time
