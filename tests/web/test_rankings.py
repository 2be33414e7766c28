"""Rankings in a real browser: from home to this week's rankings, a district's tab with a
shop's rank there, and the badge on the shop's page. In English: the Chinese catalogue
gets these strings after this test was written."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from rankings import services
from tests.factories import ShopFactory, ShopTypeFactory

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def browser_locale() -> str:
    return "en-US"


def test_a_shops_rank_in_its_district_and_its_badge(page: Page) -> None:
    food = ShopTypeFactory(name="美食", name_en="Food", sort=0)
    ShopFactory(name="Old Alley Noodles", type=food, area="静安寺", rating_5=9, comments=9)
    second = ShopFactory(name="Jade Garden", type=food, area="静安寺", rating_5=5, comments=5)
    ShopFactory(name="Riverside Cafe", type=food, area="外滩", rating_4=5, comments=5)
    services.compute_all(force=True)

    page.goto("/#/")
    page.get_by_role("link", name="This week's rankings").click()
    expect(page.get_by_role("heading", name="Rankings")).to_be_visible()
    page.get_by_role("navigation", name="By district").get_by_role("link", name="静安寺").click()
    entries = page.locator("ol.ranking > li")
    expect(entries).to_have_count(2)
    expect(entries.nth(1)).to_contain_text("No. 2")
    expect(entries.nth(1).get_by_role("link", name="Jade Garden")).to_be_visible()

    entries.nth(1).get_by_role("link", name="Jade Garden").click()
    expect(page.get_by_role("heading", name="Jade Garden")).to_be_visible()
    badge = page.locator(".rank-badge").first
    expect(badge).to_have_text("No. 2 on the 静安寺 list")
    assert second.id  # the page is the second shop's
    badge.click()
    expect(page.locator("ol.ranking > li")).to_have_count(2)
