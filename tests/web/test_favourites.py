"""Favourites in a real browser: a user saves a shop on its page, finds it under My
favourites (a tab per kind), and unsaves it there; a flash sale saved from the home page
is under the vouchers tab. In English: the Chinese catalogue
gets these strings after this test was written."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User
from favourites import services
from favourites.models import Favourite
from tests.factories import BlogFactory, ShopFactory
from tests.vouchers.sales import start_sale
from tests.web.conftest import log_in, screenshot

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def browser_locale() -> str:
    return "en-US"


def test_save_a_shop_and_find_it_under_my_favourites(page: Page) -> None:
    shop = ShopFactory(name="Old Alley Noodles")
    note = BlogFactory(title="Where to eat soup dumplings")
    log_in(page, "13900000301", language="en")
    me = User.objects.get(phone="13900000301")
    services.favourite_save(user_id=me.id, kind="blog", object_id=note.id)

    page.goto(f"/#/shops/{shop.id}")
    expect(page.get_by_role("heading", name="Old Alley Noodles")).to_be_visible()
    expect(page.get_by_text("0 saves")).to_be_visible()
    page.get_by_role("button", name="☆ Save").click()
    expect(page.get_by_role("button", name="★ Saved")).to_have_attribute("aria-pressed", "true")
    expect(page.get_by_text("1 save", exact=True)).to_be_visible()
    assert Favourite.objects.filter(user=me, kind="shop", object_id=shop.id).exists()

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Favourites").click()
    expect(page.get_by_role("heading", name="My favourites")).to_be_visible()
    expect(page.get_by_role("tab", name="Shops")).to_have_attribute("aria-selected", "true")
    cards = page.locator("#favourites article")
    expect(cards).to_have_count(1)
    expect(cards.first.get_by_role("link", name="Old Alley Noodles")).to_be_visible()
    screenshot(page, "favourites")
    page.get_by_role("tab", name="Notes").click()
    expect(page.locator("#favourites article")).to_have_count(1)
    expect(page.locator("#favourites")).to_contain_text("Where to eat soup dumplings")

    page.get_by_role("tab", name="Shops").click()
    expect(cards.first.get_by_role("button", name="★ Saved")).to_be_visible()
    cards.first.get_by_role("button", name="★ Saved").click()
    expect(cards.first.get_by_role("button", name="☆ Save")).to_be_visible()
    assert not Favourite.objects.filter(user=me, kind="shop").exists()
    page.reload()
    expect(page.get_by_text("No saved shops yet")).to_be_visible()
    page.goto(f"/#/shops/{shop.id}")
    expect(page.get_by_role("button", name="☆ Save")).to_have_attribute("aria-pressed", "false")


def test_save_a_flash_sale_on_the_home_page_and_find_it_under_vouchers(page: Page) -> None:
    sale = start_sale(title="Half-price hotpot")
    start_sale(title="Cheap coffee")
    log_in(page, "13900000302", language="en")
    me = User.objects.get(phone="13900000302")

    page.goto("/")
    card = page.locator(".card", has=page.get_by_role("link", name="Half-price hotpot"))
    card.get_by_role("button", name="☆ Save").click()
    expect(card.get_by_role("button", name="★ Saved")).to_have_attribute("aria-pressed", "true")
    assert Favourite.objects.filter(user=me, kind="voucher", object_id=sale.id).exists()
    page.reload()  # the home page's sale list carries the reader's `saved` marker
    card = page.locator(".card", has=page.get_by_role("link", name="Half-price hotpot"))
    expect(card.get_by_role("button", name="★ Saved")).to_be_visible()
    other = page.locator(".card", has=page.get_by_role("link", name="Cheap coffee"))
    expect(other.get_by_role("button", name="☆ Save")).to_be_visible()

    page.goto("/#/favourites?kind=voucher")
    expect(page.get_by_role("tab", name="Vouchers")).to_have_attribute("aria-selected", "true")
    cards = page.locator("#favourites article")
    expect(cards).to_have_count(1)
    expect(cards.first).to_contain_text("Half-price hotpot")
    expect(cards.first.get_by_role("button", name="★ Saved")).to_be_visible()
