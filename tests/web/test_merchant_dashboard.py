"""The merchant's dashboard in a real browser: an owner finds it from their profile, sees
the shop's numbers, the SVG charts and the reviews awaiting a reply, switches the window,
and downloads the CSV; at a phone's width and a desktop's. In English: the page's words
are new and join the Chinese catalogue with the next translation pass."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from shops.models import ShopStaff
from tests.factories import BlogFactory, NormalVoucherFactory, ShopFactory, UserFactory
from tests.web.conftest import log_in, screenshot
from toolkit import clock
from traffic import visits
from vouchers.models import VoucherOrder, WriteOff

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def browser_locale() -> str:
    return "en-US"


def _seed(shop) -> None:
    for i in range(3):
        visits.record(visits.shop_subject(shop.id), visits.Visitor(f"client:browser-{i}"))
    visits.record(visits.shop_subject(shop.id), visits.Visitor("client:browser-0"))
    visits.flush()
    voucher = NormalVoucherFactory(shop=shop)
    now = clock.now()
    for i in range(2):
        order = VoucherOrder.objects.create(
            id=9000 + i,
            user=UserFactory(),
            voucher=voucher,
            status="paid",
            created_at=now,
            expires_at=now + timedelta(days=30),
        )
    WriteOff.objects.create(
        order=order,
        voucher=voucher,
        shop=shop,
        kind="redeem",
        discount=500,
        redeemed_at=now,
        redeemed_by=order.user,
    )
    BlogFactory(shop=shop, rating=2, title="Cold soup, slow service")


def test_an_owner_sees_the_numbers_and_the_charts(page: Page) -> None:
    shop = ShopFactory(name="Old Zhang Noodles", rating_2=1, score=20)
    owner = UserFactory(phone="13900000071")
    ShopStaff.objects.create(shop=shop, user=owner, role=ShopStaff.Role.OWNER)
    _seed(shop)
    log_in(page, str(owner.phone), language="en")

    page.goto(f"/#/users/{owner.id}")  # the profile leads a shop's staff to the dashboard
    page.get_by_role("link", name="Merchant dashboard").click()

    expect(page.get_by_role("heading", name="My shops")).to_be_visible()
    expect(page.get_by_role("link", name="My shops")).to_be_visible()  # the header shows it now
    expect(page.get_by_label("Shop")).to_have_value(str(shop.id))
    numbers = {"uv": "3", "pv": "4", "claims": "2", "sales": "0", "redemptions": "1"}
    for key, value in numbers.items():
        expect(page.locator(f'[data-number="{key}"] .stat')).to_have_text(value)
    expect(page.locator('[data-number="awaiting"] .stat')).to_have_text("1")
    traffic = page.get_by_role("img", name="Visitors and page views")
    expect(traffic).to_be_visible()
    expect(traffic.locator("[data-series=uv] circle")).to_have_count(7)
    expect(page.get_by_role("img", name="Coupons claimed, sold and redeemed")).to_be_visible()
    expect(
        page.get_by_role("img", name="Ratings by stars").locator("[data-stars='2'] text").nth(1)
    ).to_have_text("1")
    expect(page.get_by_role("img", name="Average rating by week")).to_be_visible()
    review = page.get_by_role("link", name="Cold soup, slow service")
    expect(review).to_have_attribute("href", f"#/blogs/{shop.blogs.get().id}")
    screenshot(page, "merchant-dashboard-phone")

    page.set_viewport_size({"width": 1280, "height": 900})
    page.get_by_role("button", name="Last 30 days").click()
    expect(
        page.get_by_role("img", name="Visitors and page views").locator("[data-series=uv] circle")
    ).to_have_count(30)
    expect(page.locator('[data-number="claims"] .stat')).to_have_text("2")
    screenshot(page, "merchant-dashboard-desktop")

    with page.expect_download() as download:
        page.get_by_role("link", name="Download CSV").click()
    saved = download.value
    assert saved.suggested_filename.startswith(f"shop-{shop.id}-")
    lines = Path(saved.path()).read_text(encoding="utf-8").splitlines()
    assert lines[0] == "date,uv,pv,claims,sales,redemptions"
    assert len(lines) == 31
    assert lines[-1].endswith(",3,4,2,0,1")
