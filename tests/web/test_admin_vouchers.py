"""The voucher list in a browser at 1280 px: every column, the live sale link included,
in view without scrolling sideways, amounts in yuan."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.factories import NormalVoucherFactory, ShopFactory
from tests.vouchers.sales import start_sale
from tests.web.conftest import admin_log_in, screenshot

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_the_voucher_list_fits_1280_px(page: Page, expected_http: set[int]) -> None:
    expected_http.add(404)  # Django's admin names no icon: the browser asks for /favicon.ico
    shop = ShopFactory(name="新荣记（西湖天地店）")
    start_sale(stock=100, shop=shop, title="限时秒杀 ¥100 代金券")
    NormalVoucherFactory(
        shop=shop, title="周末双人套餐满减券", pay_value=1999, discount_type="full_reduction",
        amount_condition=10000, discount_amount=2000,
    )  # fmt: skip
    page.set_viewport_size({"width": 1280, "height": 800})
    admin_log_in(page)

    page.goto("/admin/vouchers/voucher/")

    expect(page.get_by_text("满 ¥100 减 ¥20")).to_be_visible()
    link = page.get_by_role("link", name="秒杀实况")
    expect(link).to_be_in_viewport()
    box = link.bounding_box()
    assert box is not None
    assert box["x"] + box["width"] <= 1280
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    screenshot(page, "admin-voucher-list")
