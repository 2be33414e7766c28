"""The order state machine's own rules (vouchers/coupons/lifecycle.py); the moves'
behaviour through the API is in test_lifecycle.py, test_checkout.py and others."""

from __future__ import annotations

import pytest

from tests.factories import NormalVoucherFactory, UserFactory
from toolkit import clock
from vouchers.coupons import lifecycle
from vouchers.coupons.lifecycle import Actor, Move
from vouchers.models import VoucherOrder

Status = VoucherOrder.Status


def test_every_state_has_an_answer_for_its_owner_and_for_its_use() -> None:
    assert set(Status.values) <= set(lifecycle.REFUSALS)


def test_every_move_leaves_one_state_for_another() -> None:
    for transition in lifecycle.TRANSITIONS.values():
        assert transition.source != transition.target
        assert {transition.source, transition.target} <= set(Status.values)


@pytest.mark.django_db
def test_a_role_that_may_not_make_a_move_changes_nothing() -> None:
    voucher = NormalVoucherFactory(pay_value=500)
    order = VoucherOrder.objects.create(
        **lifecycle.new_order(
            order_id=1,
            user_id=UserFactory().id,
            voucher_id=voucher.id,
            created_at=clock.now(),
            valid_days=3,
            pay_value=voucher.pay_value,
        )
    )

    with pytest.raises(ValueError, match="may not pay"):
        lifecycle.move(
            VoucherOrder.objects.filter(pk=order.pk),
            Move.PAY,
            by=Actor.PAY_TIMEOUT,
            now=clock.now(),
        )

    order.refresh_from_db()
    assert (order.status, order.paid_at, order.redeem_code) == (Status.UNPAID, None, None)


@pytest.mark.django_db
def test_a_new_order_of_a_free_voucher_is_paid_with_a_code_and_a_priced_one_waits() -> None:
    now = clock.now()
    free, priced = (
        lifecycle.new_order(
            order_id=1, user_id=1, voucher_id=1, created_at=now, valid_days=2, pay_value=pay
        )
        for pay in (0, 500)
    )

    assert (free["status"], free["paid_at"], len(free["redeem_code"])) == (Status.PAID, now, 12)
    assert (priced["status"], priced["paid_at"], priced["redeem_code"]) == (
        Status.UNPAID,
        None,
        None,
    )
    assert free["expires_at"] == priced["expires_at"] == lifecycle.expiry_of(now, 2)
