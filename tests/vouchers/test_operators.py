"""What operators have: the staff voucher API (list, counts, void, delete), the rule
freeze, and admin's counts, delete refusals, order filter and write-off export."""

from __future__ import annotations

from datetime import timedelta

import pytest

from shops.models import ShopStaff
from tests.factories import NormalVoucherFactory, ShopFactory, UserFactory, VoucherFactory
from tests.helpers import client_for
from tests.vouchers.sales import drain_all, start_sale
from toolkit import clock
from vouchers.models import Voucher, VoucherOrder, WriteOff
from vouchers.sale import seckill, shard


def _claim(user, voucher) -> str:
    return client_for(user).post(f"/api/vouchers/{voucher.id}/claim").json()["order_id"]


@pytest.mark.django_db
def test_staff_list_vouchers_by_shop_and_real_time_status(staff_api, fake_clock) -> None:
    shop = ShopFactory()
    now = clock.now()
    on = VoucherFactory(shop=shop, begin_time=now - timedelta(minutes=5))
    soon = VoucherFactory(shop=shop)  # starts in an hour
    over = VoucherFactory(shop=shop, begin_time=now - timedelta(days=1))
    void = VoucherFactory(shop=shop, status=Voucher.Status.VOID)
    normal = NormalVoucherFactory(shop=shop)
    NormalVoucherFactory()  # another shop

    def listed(query: str) -> list[int]:
        return [
            v["id"]
            for v in staff_api.get(f"/api/vouchers?shop_id={shop.id}{query}").json()["results"]
        ]

    assert listed("") == [normal.id, void.id, over.id, soon.id, on.id]
    assert listed("&status=active") == [normal.id, on.id]  # no status job has run
    assert listed("&status=pending") == [soon.id]
    assert listed("&status=ended") == [over.id]
    assert listed("&status=void") == [void.id]
    assert staff_api.get("/api/vouchers?status=over").status_code == 400
    assert staff_api.get("/api/vouchers?shop_id=abc").status_code == 400


@pytest.mark.django_db(transaction=True)  # the refund's after-commit release runs
def test_staff_see_a_voucher_with_its_counts_and_stock(staff_api, fake_clock) -> None:
    sale = start_sale(stock=10)
    buyers = [UserFactory() for _ in range(4)]
    orders = [seckill.voucher_seckill(user_id=b.id, voucher_id=sale.id) for b in buyers]
    drain_all()
    for buyer, order_id in zip(buyers[:3], orders[:3], strict=True):
        client_for(buyer).post(f"/api/voucher-orders/{order_id}/pay")
    client_for(buyers[0]).post(f"/api/voucher-orders/{orders[0]}/refund")
    VoucherOrder.objects.filter(pk=orders[1]).update(status="used")

    body = staff_api.get(f"/api/vouchers/{sale.id}").json()

    assert body["counts"] == {
        "claimed": 4,
        "unpaid": 1,
        "paid": 1,
        "used": 1,
        "refunded": 1,
        "cancelled": 0,
    }
    assert (body["stock"], body["remaining"]) == (7, 7)  # the refund's unit went back


@pytest.mark.django_db
def test_the_staff_voucher_api_is_staff_only(api, user_api) -> None:
    voucher = NormalVoucherFactory()

    for client, status in [(api, 401), (user_api, 403)]:
        assert client.get("/api/vouchers").status_code == status
        assert client.get(f"/api/vouchers/{voucher.id}").status_code == status
        assert client.post(f"/api/vouchers/{voucher.id}/void").status_code == status
        assert client.delete(f"/api/vouchers/{voucher.id}").status_code == status
    assert Voucher.objects.get(pk=voucher.pk).status != Voucher.Status.VOID


@pytest.mark.django_db(transaction=True)  # the void's after-commit eviction runs
def test_void_stops_claims_and_keeps_held_coupons_usable(staff_api, user) -> None:
    voucher = NormalVoucherFactory(pay_value=0, per_user_limit=2)
    held = _claim(user, voucher)

    voided = staff_api.post(f"/api/vouchers/{voucher.id}/void")

    assert (voided.status_code, voided.json()["status"]) == (200, "void")
    assert client_for(user).post(f"/api/vouchers/{voucher.id}/claim").json()["code"] == "ended"
    checkout = client_for(user).post(
        "/api/shop-orders",
        {"shop_id": voucher.shop_id, "amount": 9000, "coupon_id": held},
        format="json",
    )
    assert checkout.status_code == 201


@pytest.mark.django_db
def test_the_rule_is_frozen_once_coupons_exist(staff_api, user) -> None:
    voucher = NormalVoucherFactory(pay_value=0, actual_value=1000)
    assert (
        staff_api.patch(
            f"/api/vouchers/{voucher.id}", {"actual_value": 1500}, format="json"
        ).status_code
        == 200
    )  # nobody holds one yet
    _claim(user, voucher)

    refused = staff_api.patch(
        f"/api/vouchers/{voucher.id}",
        {"discount_type": "percentage", "discount_rate": 50, "actual_value": 1500},
        format="json",
    )
    moved = staff_api.patch(
        f"/api/vouchers/{voucher.id}", {"shop_id": ShopFactory().id}, format="json"
    )
    harmless = staff_api.patch(f"/api/vouchers/{voucher.id}", {"title": "new title"}, format="json")

    assert (refused.status_code, refused.json()["code"]) == (409, "rule_frozen")
    assert moved.json()["code"] == "rule_frozen"
    assert harmless.status_code == 200
    voucher.refresh_from_db()
    assert (voucher.discount_type, voucher.actual_value, voucher.title) == (
        "cash",
        1500,
        "new title",
    )


@pytest.mark.django_db(transaction=True)  # the delete's after-commit clean-up runs
def test_delete_clears_redis_and_is_refused_while_in_use(
    staff_api, redis_client, fake_clock
) -> None:
    pending = VoucherFactory()  # starts in an hour, stock preloaded
    from vouchers.sale import stock

    stock.stock_load([pending])
    assert redis_client.exists(shard.stock_key(pending.id))
    on_sale = start_sale(stock=5)
    sold = start_sale(stock=5)
    seckill.voucher_seckill(user_id=UserFactory().id, voucher_id=sold.id)  # not drained yet
    fake_clock.advance(3 * 3600)  # both sales ended: only orders stand in the way now
    claimed = NormalVoucherFactory(pay_value=0)
    _claim(UserFactory(), claimed)

    assert staff_api.delete(f"/api/vouchers/{pending.id}").status_code == 204
    assert not Voucher.objects.filter(pk=pending.pk).exists()
    assert not redis_client.exists(shard.stock_key(pending.id))
    assert staff_api.delete(f"/api/vouchers/{on_sale.id}").status_code == 204  # ended, unsold
    in_stream = staff_api.delete(f"/api/vouchers/{sold.id}")
    in_db = staff_api.delete(f"/api/vouchers/{claimed.id}")
    assert (in_stream.status_code, in_stream.json()["code"]) == (409, "voucher_has_orders")
    assert (in_db.status_code, in_db.json()["code"]) == (409, "voucher_has_orders")
    assert Voucher.objects.filter(pk__in=[sold.pk, claimed.pk]).count() == 2
    assert redis_client.get(shard.stock_key(sold.id)) == b"4"  # untouched
    drain_all()
    assert VoucherOrder.objects.filter(voucher=sold).count() == 1  # nothing stranded


@pytest.mark.django_db
def test_a_running_sale_cannot_be_deleted(staff_api, fake_clock) -> None:
    sale = start_sale()

    refused = staff_api.delete(f"/api/vouchers/{sale.id}")

    assert (refused.status_code, refused.json()["code"]) == (409, "sale_active")
    assert Voucher.objects.filter(pk=sale.pk).exists()


@pytest.mark.django_db
def test_admin_lists_counts_and_refuses_to_delete_a_voucher_in_use(admin_client, user) -> None:
    voucher = NormalVoucherFactory(pay_value=0, title="Counted coupon", per_user_limit=3)
    for _ in range(3):
        _claim(user, voucher)
    first = VoucherOrder.objects.earliest("created_at", "id")
    client_for(user).post(f"/api/voucher-orders/{first.id}/refund")

    page = admin_client.get("/admin/vouchers/voucher/").content.decode()
    confirm = admin_client.post(
        "/admin/vouchers/voucher/",
        {"action": "delete_selected", "_selected_action": [voucher.id]},
    ).content.decode()
    admin_client.post(
        f"/admin/vouchers/voucher/{voucher.id}/delete/", {"post": "yes"}
    )  # what a forced confirmation would send

    # claimed / paid / used / refunded
    assert '<td class="field-order_counts">3 / 2 / 0 / 1</td>' in page
    assert "Counted coupon：这张优惠券已有订单，请改为作废。" in confirm
    assert Voucher.objects.filter(pk=voucher.pk).exists()


@pytest.mark.django_db
def test_admin_filters_orders_by_voucher_and_hides_redeem_codes(admin_client, user) -> None:
    mine = NormalVoucherFactory(pay_value=0)
    other = NormalVoucherFactory(pay_value=0)
    kept = _claim(user, mine)
    _claim(user, other)

    page = admin_client.get(f"/admin/vouchers/voucherorder/?voucher__id__exact={mine.id}")
    detail = admin_client.get(f"/admin/vouchers/voucherorder/{kept}/change/").content.decode()

    assert [o.id for o in page.context["cl"].result_list] == [int(kept)]
    assert VoucherOrder.objects.get(pk=kept).redeem_code not in detail


@pytest.mark.django_db
def test_admin_exports_write_offs_as_csv(admin_client, user) -> None:
    shop = ShopFactory(name="导出小店")
    clerk = UserFactory()
    ShopStaff.objects.create(shop=shop, user=clerk)
    voucher = NormalVoucherFactory(shop=shop, pay_value=0, actual_value=700, per_user_limit=2)
    codes = [VoucherOrder.objects.get(pk=_claim(user, voucher)).redeem_code for _ in range(2)]
    for code in codes:
        client_for(clerk).post("/api/redemptions", {"code": code}, format="json")
    NormalVoucherFactory()  # a shop without write-offs is not in the filter

    filtered = admin_client.get(f"/admin/vouchers/writeoff/?shop={shop.id}")
    export = admin_client.post(
        "/admin/vouchers/writeoff/",
        {
            "action": "export_csv",
            "_selected_action": list(WriteOff.objects.values_list("id", flat=True)),
        },
    )

    assert len(filtered.context["cl"].result_list) == 2
    assert "导出小店" in filtered.content.decode()
    lines = b"".join(export.streaming_content).decode().strip().splitlines()
    assert lines[0].startswith("id,kind,shop_id,voucher_id,order_id")
    assert len(lines) == 3
    assert all(",redeem," in line and ",700," in line for line in lines[1:])
