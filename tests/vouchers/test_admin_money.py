"""The admin in yuan: the voucher list's amounts, the voucher form that takes yuan and
stores fen (refusing three decimals or a negative amount), the shop orders' and
write-offs' amounts, and a voucher's latest orders on its page."""

from __future__ import annotations

import pytest

from tests.factories import NormalVoucherFactory, ShopFactory, UserFactory
from tests.helpers import client_for
from toolkit import clock
from toolkit.money import YuanField, yuan
from vouchers.models import ShopOrder, Voucher, VoucherOrder

pytestmark = pytest.mark.django_db


def _claim(user, voucher) -> str:
    return client_for(user).post(f"/api/vouchers/{voucher.id}/claim").json()["order_id"]


def _form_data(voucher: Voucher, **typed: str) -> dict[str, str]:
    """What the change form posts for a normal voucher, amounts as an operator types them."""
    return {
        "shop": str(voucher.shop_id),
        "title": voucher.title,
        "sub_title": "",
        "rules": "",
        "type": "normal",
        "valid_days": "30",
        "discount_type": voucher.discount_type,
        "per_user_limit": "1",
        "stock": "",
        "begin_time_0": "",
        "begin_time_1": "",
        "end_time_0": "",
        "end_time_1": "",
        "pay_value": "0",
        "actual_value": "50",
        "amount_condition": "0",
        "discount_amount": "",
        "discount_rate": "",
        "max_discount": "",
        "sale_shards": voucher.sale_shards,
        "orders-TOTAL_FORMS": "0",
        "orders-INITIAL_FORMS": "0",
        "orders-MIN_NUM_FORMS": "0",
        "orders-MAX_NUM_FORMS": "0",
        **typed,
    }


def test_yuan_reads_as_the_client_shows_money() -> None:
    assert [yuan(10000), yuan(1999), yuan(5), yuan(0), yuan(None)] == [
        "¥100", "¥19.99", "¥0.05", "¥0", "-",
    ]  # fmt: skip
    field = YuanField()
    assert field.clean("19.99") == 1999
    assert field.clean("0.07") == 7
    assert field.prepare_value(1999) == "19.99"


def test_the_voucher_list_shows_yuan(admin_client) -> None:
    NormalVoucherFactory(
        title="满减券", pay_value=1999, discount_type="full_reduction", amount_condition=10000,
        discount_amount=2000,
    )  # fmt: skip
    NormalVoucherFactory(title="代金券", pay_value=0, actual_value=5000)

    page = admin_client.get("/admin/vouchers/voucher/").content.decode()

    assert "满 ¥100 减 ¥20" in page
    assert '<td class="field-discount">抵 ¥50</td>' in page
    assert '<td class="field-price">¥19.99</td>' in page
    assert "10000" not in page


def test_the_voucher_form_round_trips_yuan_and_fen(admin_client) -> None:
    voucher = NormalVoucherFactory(pay_value=0, actual_value=5000)
    url = f"/admin/vouchers/voucher/{voucher.id}/change/"
    shown = admin_client.get(url).content.decode()
    assert 'name="actual_value" value="50.00"' in shown
    assert 'step="0.01"' in shown

    saved = admin_client.post(url, _form_data(voucher, pay_value="19.99", actual_value="25.5"))

    assert saved.status_code == 302, saved.context["adminform"].form.errors
    voucher.refresh_from_db()
    assert (voucher.pay_value, voucher.actual_value) == (1999, 2550)
    again = admin_client.get(url).content.decode()
    assert 'name="pay_value" value="19.99"' in again
    assert 'name="actual_value" value="25.50"' in again


@pytest.mark.parametrize(
    ("typed", "error"),
    [
        ("19.999", "Ensure that there are no more than 2 decimal places."),
        ("-1", "Ensure this value is greater than or equal to 0."),
        ("abc", "Enter a number."),
    ],
)
def test_the_voucher_form_refuses_bad_yuan(admin_client, typed: str, error: str) -> None:
    voucher = NormalVoucherFactory(pay_value=100, actual_value=5000)
    url = f"/admin/vouchers/voucher/{voucher.id}/change/"

    refused = admin_client.post(
        url, _form_data(voucher, pay_value=typed), HTTP_ACCEPT_LANGUAGE="en"
    )

    assert refused.status_code == 200
    assert error in str(refused.context["adminform"].form.errors["pay_value"])
    voucher.refresh_from_db()
    assert voucher.pay_value == 100


def test_a_voucher_with_orders_shows_frozen_amounts_in_yuan(admin_client, user) -> None:
    voucher = NormalVoucherFactory(pay_value=0, actual_value=1250, per_user_limit=3)
    _claim(user, voucher)

    page = admin_client.get(f"/admin/vouchers/voucher/{voucher.id}/change/").content.decode()

    assert '<div class="readonly">¥12.50</div>' in page
    assert 'name="actual_value"' not in page


def test_a_voucher_with_orders_saves_its_title_and_keeps_its_frozen_amounts(
    admin_client, user
) -> None:
    """The form of a voucher with orders posts without its frozen fields (read-only there)
    and without the read-only orders inline's rows; a frozen amount posted anyway by a
    stale page is ignored, not stored."""
    voucher = NormalVoucherFactory(pay_value=0, actual_value=1250, per_user_limit=3)
    _claim(user, voucher)
    url = f"/admin/vouchers/voucher/{voucher.id}/change/"
    form = _form_data(voucher, title="改名券", actual_value="99")
    form["orders-TOTAL_FORMS"] = form["orders-INITIAL_FORMS"] = "1"

    saved = admin_client.post(url, form)

    assert saved.status_code == 302, saved.context["adminform"].form.errors
    voucher.refresh_from_db()
    assert (voucher.title, voucher.actual_value) == ("改名券", 1250)
    assert VoucherOrder.objects.filter(voucher=voucher).count() == 1


def test_a_voucher_page_lists_its_latest_orders(admin_client, monkeypatch) -> None:
    monkeypatch.setattr("vouchers.admin.ORDERS_INLINE", 2)
    voucher = NormalVoucherFactory(pay_value=0, per_user_limit=1)
    buyers = [UserFactory(phone=f"1390000040{i}") for i in range(3)]
    for buyer in buyers:
        _claim(buyer, voucher)
    other = NormalVoucherFactory(pay_value=0)
    _claim(UserFactory(phone="13900000499"), other)

    page = admin_client.get(f"/admin/vouchers/voucher/{voucher.id}/change/")
    html = page.content.decode()

    orders = list(VoucherOrder.objects.filter(voucher=voucher).order_by("-created_at", "-id"))
    shown = [form.instance.pk for form in page.context["inline_admin_formsets"][0].formset]
    assert shown == [o.pk for o in orders[:2]]  # the latest two of three
    assert "13900000499" not in html  # another voucher's buyer
    assert f"/admin/vouchers/voucherorder/?voucher__id__exact={voucher.id}" in html
    assert 'name="orders-0-status"' not in html  # read-only


def test_shop_orders_show_yuan(admin_client, user) -> None:
    order = ShopOrder.objects.create(
        id=987654321, user=user, shop=ShopFactory(), amount=12850, discount=2570, payable=10280,
        created_at=clock.now(),
    )  # fmt: skip

    listing = admin_client.get("/admin/vouchers/shoporder/").content.decode()
    detail = admin_client.get(f"/admin/vouchers/shoporder/{order.id}/change/").content.decode()

    for page in (listing, detail):
        assert "¥128.50" in page
        assert "¥25.70" in page
        assert "¥102.80" in page
    assert "12850" not in listing
