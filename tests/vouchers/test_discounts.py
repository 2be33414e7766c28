"""The discount rules: one pure function, its edges, and the rules the API and admin refuse."""

from __future__ import annotations

import pytest

from tests.factories import NormalVoucherFactory, ShopFactory
from vouchers.coupons.discounts import CASH, FULL_REDUCTION, PERCENTAGE, DiscountRule, discount_for
from vouchers.models import Voucher


def rule(kind: str, **fields: int | None) -> DiscountRule:
    return DiscountRule(type=kind, value=fields.pop("value", 0) or 0, **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("voucher", "amount", "expected"),
    [
        (rule(CASH, value=5000), 8000, 5000),
        (rule(CASH, value=5000), 3000, 3000),  # never more than the amount
        (rule(CASH, value=5000), 5000, 5000),
        (rule(FULL_REDUCTION, amount_condition=10000, discount_amount=2000), 10000, 2000),  # at
        (rule(FULL_REDUCTION, amount_condition=10000, discount_amount=2000), 9999, None),  # below
        (rule(FULL_REDUCTION, amount_condition=10000, discount_amount=2000), 25000, 2000),
        (rule(FULL_REDUCTION, amount_condition=5000, discount_amount=5000), 5000, 5000),
        (rule(PERCENTAGE, discount_rate=88), 10000, 1200),
        (rule(PERCENTAGE, discount_rate=88), 1, 0),  # 1 * 12 // 100 rounds down
        (rule(PERCENTAGE, discount_rate=88), 9, 1),  # 108 // 100
        (rule(PERCENTAGE, discount_rate=99), 50, 0),
        (rule(PERCENTAGE, discount_rate=1), 10000, 9900),
        (rule(PERCENTAGE, discount_rate=80, max_discount=3000), 10000, 2000),  # under the cap
        (rule(PERCENTAGE, discount_rate=80, max_discount=3000), 15000, 3000),  # at the cap
        (rule(PERCENTAGE, discount_rate=80, max_discount=3000), 90000, 3000),  # capped
        (rule(PERCENTAGE, discount_rate=80, amount_condition=5000), 4999, None),
        (rule(PERCENTAGE, discount_rate=80, amount_condition=5000), 5000, 1000),
    ],
)
def test_discount_for(voucher: DiscountRule, amount: int, expected: int | None) -> None:
    assert discount_for(voucher, amount) == expected


BASE = {"title": "coupon", "pay_value": 0, "actual_value": 2000, "type": "normal"}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("fields", "bad"),
    [
        ({"discount_type": "cash", "amount_condition": 100}, "amount_condition"),
        ({"discount_type": "cash", "discount_amount": 100}, "discount_amount"),
        ({"discount_type": "cash", "discount_rate": 90}, "discount_rate"),
        ({"discount_type": "cash", "max_discount": 100}, "max_discount"),
        ({"discount_type": "full_reduction", "amount_condition": 100}, "discount_amount"),
        (
            {"discount_type": "full_reduction", "amount_condition": 100, "discount_amount": 200},
            "amount_condition",
        ),
        (
            {
                "discount_type": "full_reduction",
                "amount_condition": 1000,
                "discount_amount": 200,
                "discount_rate": 90,
            },
            "discount_rate",
        ),
        ({"discount_type": "percentage"}, "discount_rate"),
        ({"discount_type": "percentage", "discount_rate": 100}, "discount_rate"),
        ({"discount_type": "percentage", "discount_rate": 0}, "discount_rate"),
        (
            {"discount_type": "percentage", "discount_rate": 90, "discount_amount": 100},
            "discount_amount",
        ),
        ({"discount_type": "percentage", "discount_rate": 90, "max_discount": 0}, "max_discount"),
        ({"discount_type": "bogus"}, "discount_type"),
        ({"per_user_limit": 0}, "per_user_limit"),
        ({"type": "seckill", "per_user_limit": 2, "stock": 5}, "per_user_limit"),
    ],
)
def test_missing_or_contradictory_rules_are_400_and_write_nothing(
    staff_api, fields: dict, bad: str
) -> None:
    shop = ShopFactory()
    body = {**BASE, "shop_id": shop.id, **fields}
    if body["type"] == "seckill":
        body |= {"begin_time": "2030-01-01T10:00:00Z", "end_time": "2030-01-01T12:00:00Z"}

    response = staff_api.post("/api/vouchers", body, format="json")

    assert response.status_code == 400
    assert bad in response.json()["errors"]
    assert not Voucher.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("fields", "shown"),
    [
        ({}, {"discount_type": "cash", "amount_condition": 0}),
        (
            {"discount_type": "full_reduction", "amount_condition": 10000, "discount_amount": 2000},
            {"discount_type": "full_reduction", "discount_amount": 2000},
        ),
        (
            {"discount_type": "percentage", "discount_rate": 88, "max_discount": 5000},
            {"discount_type": "percentage", "discount_rate": 88, "max_discount": 5000},
        ),
    ],
)
def test_staff_create_each_discount_type(staff_api, fields: dict, shown: dict) -> None:
    shop = ShopFactory()
    response = staff_api.post(
        "/api/vouchers", {**BASE, "shop_id": shop.id, **fields}, format="json"
    )

    assert response.status_code == 201, response.json()
    assert response.json().items() >= shown.items()
    assert Voucher.objects.get().discount_type == shown["discount_type"]


@pytest.mark.django_db
def test_a_patch_is_judged_with_the_fields_it_leaves_alone(staff_api) -> None:
    voucher = NormalVoucherFactory(
        discount_type="full_reduction", amount_condition=10000, discount_amount=2000
    )

    switch = staff_api.patch(
        f"/api/vouchers/{voucher.id}", {"discount_type": "cash"}, format="json"
    )
    assert switch.status_code == 400  # the 满减 fields would contradict a cash voucher
    assert set(switch.json()["errors"]) == {"amount_condition", "discount_amount"}
    voucher.refresh_from_db()
    assert voucher.discount_type == "full_reduction"

    cleared = staff_api.patch(
        f"/api/vouchers/{voucher.id}",
        {"discount_type": "cash", "amount_condition": 0, "discount_amount": None},
        format="json",
    )
    assert cleared.status_code == 200
    voucher.refresh_from_db()
    assert (voucher.discount_type, voucher.discount_amount) == ("cash", None)


@pytest.mark.django_db
def test_admin_refuses_the_same_rules(admin_client) -> None:
    shop = ShopFactory()
    form = {
        "shop": shop.id,
        "title": "bad",
        "pay_value": 0,
        "actual_value": 100,
        "type": "normal",
        "valid_days": 30,
        "discount_type": "percentage",
        "amount_condition": 0,
        "per_user_limit": 1,
    }

    response = admin_client.post("/admin/vouchers/voucher/add/", form)

    assert response.status_code == 200  # the form again, with the error
    assert "折扣券的 discount_rate 必须在 1 到 99 之间。" in response.content.decode()
    assert not Voucher.objects.exists()
