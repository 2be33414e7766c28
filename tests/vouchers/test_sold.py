"""A shop's `sold` follows its paid coupons (docs/product/reviews.md#sold): payments,
free claims, drained free orders and refunds note their voucher after commit; the beat
job counts the noted shops again from the orders, and the next load of the shop shows
it."""

from __future__ import annotations

from datetime import timedelta

import pytest

from shops.models import Shop
from tests.factories import NormalVoucherFactory, ShopFactory, UserFactory
from tests.vouchers.sales import drain_all, start_sale
from toolkit import clock
from vouchers import keys, tasks
from vouchers.coupons import sold
from vouchers.models import VoucherOrder
from vouchers.sale import seckill

pytestmark = pytest.mark.django_db(transaction=True)  # notes are made after commit


def _sold(api, shop_id: int) -> int:
    return api.get(f"/api/shops/{shop_id}").json()["sold"]


def test_payments_free_claims_and_refunds_move_sold(api, user_api) -> None:
    shop = ShopFactory()
    priced = NormalVoucherFactory(shop=shop, pay_value=100)
    free = NormalVoucherFactory(shop=shop, pay_value=0)
    assert _sold(api, shop.id) == 0  # cached now

    unpaid = user_api.post(f"/api/vouchers/{priced.id}/claim").json()["order_id"]
    user_api.post(f"/api/vouchers/{free.id}/claim")
    assert tasks.count_sold() == 1
    assert _sold(api, shop.id) == 1  # the free coupon is paid at once; the other is not

    assert user_api.post(f"/api/voucher-orders/{unpaid}/pay").status_code == 200
    tasks.count_sold()
    assert _sold(api, shop.id) == 2

    assert user_api.post(f"/api/voucher-orders/{unpaid}/refund").status_code == 200
    tasks.count_sold()
    assert _sold(api, shop.id) == 1
    assert tasks.count_sold() == 0  # nothing noted since


def test_drained_free_orders_count(api, user, fake_clock) -> None:
    shop = ShopFactory()
    voucher = start_sale(shop=shop, pay_value=0, stock=5)
    seckill.voucher_seckill(user_id=user.id, voucher_id=voucher.id)
    drain_all()

    tasks.count_sold()

    assert Shop.objects.get(pk=shop.id).sold == 1
    assert _sold(api, shop.id) == 1


def test_noted_vouchers_are_kept_when_the_count_fails(redis_client, monkeypatch) -> None:
    shop = ShopFactory()
    voucher = NormalVoucherFactory(shop=shop, pay_value=0)
    VoucherOrder.objects.create(
        id=1,
        user=UserFactory(),
        voucher=voucher,
        status="paid",
        created_at=clock.now(),
        expires_at=clock.now() + timedelta(days=1),
    )
    sold.sold_changed([voucher.id])

    def broken(**_: object) -> None:
        raise RuntimeError("database down")

    monkeypatch.setattr(sold, "sold_save", broken)
    with pytest.raises(RuntimeError):
        sold.count_sold()
    assert redis_client.smembers(keys.sold_changed()) == {str(voucher.id).encode()}

    monkeypatch.undo()
    assert sold.count_sold() == 1
    assert Shop.objects.get(pk=shop.id).sold == 1


def test_counting_sold_beside_reviews_moving_between_two_shops() -> None:
    """Both write shop rows: reviews lock the shops of a moved note in id order, and the
    sold count writes its shops in id order too. Run together on MariaDB, neither may
    deadlock, and both counts end as the rows say."""
    from blogs.models import Blog
    from tests.helpers import client_for, run_concurrently

    first, second = ShopFactory(), ShopFactory()
    free = [NormalVoucherFactory(shop=shop, pay_value=0) for shop in (first, second)]
    for voucher in free:
        VoucherOrder.objects.create(
            id=voucher.id,
            user=UserFactory(),
            voucher=voucher,
            status="paid",
            created_at=clock.now(),
            expires_at=clock.now() + timedelta(days=1),
        )
    writers = [client_for(UserFactory()) for _ in range(6)]
    notes = [
        w.post(
            "/api/blogs",
            {"title": "t", "content": "c", "shop_id": second.id, "rating": 4},
            format="json",
        ).json()["id"]
        for w in writers
    ]

    def work(i: int) -> int:
        if i < len(writers):  # move a note to the other shop: both shops locked
            path = f"/api/blogs/{notes[i]}"
            return writers[i].patch(path, {"shop_id": first.id}, format="json").status_code
        sold.sold_changed([v.id for v in free])
        sold.count_sold()
        return 200

    assert run_concurrently(work, workers=12) == [200] * 12

    sold.sold_changed([v.id for v in free])
    sold.count_sold()
    assert [Shop.objects.get(pk=s.id).sold for s in (first, second)] == [1, 1]
    assert Blog.objects.filter(shop=first).count() == 6
    shown = Shop.objects.get(pk=first.id)
    assert (shown.comments, shown.rating_4, shown.score) == (6, 6, 40)
    assert Shop.objects.get(pk=second.id).comments == 0
