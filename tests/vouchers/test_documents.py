"""The hot reads build vouchers and orders from rows (vouchers/documents.py), not with the
serializers: they must answer exactly what the serializers would, for every kind of
voucher and order state, in any time zone."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.factories import NormalVoucherFactory, UserFactory, VoucherFactory
from toolkit import clock
from vouchers import documents, selectors
from vouchers.coupons import selectors as coupon_selectors
from vouchers.models import Voucher, VoucherOrder
from vouchers.serializers import MyVoucherSerializer, VoucherSerializer


@pytest.mark.django_db
@pytest.mark.parametrize("zone", ["Asia/Shanghai", "UTC", "America/New_York"])
def test_documents_are_the_serializers_output(fake_clock, zone) -> None:
    sale = VoucherFactory()  # a flash sale
    normal = NormalVoucherFactory(stock=None, discount_type="percentage", discount_rate=80)
    void = NormalVoucherFactory(status=Voucher.Status.VOID)
    user = UserFactory()
    now = clock.now()  # what the serializers read
    for i, (voucher, status) in enumerate(
        [
            (sale, "unpaid"),
            (normal, "paid"),
            (void, "used"),
            (normal, "refunded"),
            (normal, "cancelled"),
        ]
    ):
        VoucherOrder.objects.create(
            id=10_000 + i,
            user=user,
            voucher=voucher,
            status=status,
            created_at=now,
            live_slot=i + 1,
            paid_at=now if status != "unpaid" else None,
            expires_at=now if i == 1 else now + timedelta(days=3),
        )

    with timezone.override(zone):
        for voucher in (sale, normal, void):
            row = Voucher.objects.filter(pk=voucher.pk).values(*documents.voucher_columns())[0]
            expected = VoucherSerializer(Voucher.objects.get(pk=voucher.pk)).data
            assert documents.voucher_document(row, now=now) == expected
        rows = VoucherOrder.objects.order_by("id").values(*documents.ORDER_COLUMNS)
        orders = VoucherOrder.objects.order_by("id").select_related("voucher")
        built = [documents.my_voucher_document(row, now=now) for row in rows]
        assert built == MyVoucherSerializer(orders, many=True).data
    assert {doc["status"] for doc in built} >= {"unpaid", "expired", "used", "refunded"}


@pytest.mark.django_db
def test_cached_documents_are_the_serializers_output(fake_clock) -> None:
    """ "My vouchers" and a shop's vouchers from the caches (JSON stored, completed at read
    time) answer what the serializers would."""
    sale = VoucherFactory(begin_time=clock.now() - timedelta(minutes=1))
    normal = NormalVoucherFactory(shop=sale.shop, stock=3)
    user = UserFactory()
    now = clock.now()
    for i, (voucher, status) in enumerate([(sale, "unpaid"), (normal, "paid"), (normal, "used")]):
        VoucherOrder.objects.create(
            id=20_000 + i,
            user=user,
            voucher=voucher,
            status=status,
            created_at=now,
            live_slot=i + 1,
            paid_at=now,
            expires_at=now + timedelta(days=3),
        )
    orders = VoucherOrder.objects.select_related("voucher")

    for tab, status in [("unpaid", "unpaid"), ("unused", "paid"), ("used", "used")]:
        for _ in range(2):  # a miss, then a hit
            page, _ = coupon_selectors.my_vouchers(user_id=user.id, tab=tab, last_id=None)
            assert page == MyVoucherSerializer(orders.filter(status=status), many=True).data
    expected = [
        {**VoucherSerializer(sale).data, "remaining": 7},  # live stock, for a sale
        {**VoucherSerializer(normal).data, "remaining": 3},  # the database's
    ]
    for _ in range(2):
        listed = selectors.shop_vouchers_listed(shop_id=sale.shop_id)
        assert selectors.vouchers_now(listed, {sale.id: 7}) == expected
