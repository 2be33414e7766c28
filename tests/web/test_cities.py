"""The city chooser in a real browser (decision 397): switched to the second city, the
home page's flash sales and a type's shop list are that city's; a reload keeps the choice
(localStorage). English, as the chooser's label comes with the next catalogue."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from shops import services as shop_services
from tests.factories import CityFactory, ShopFactory, ShopTypeFactory
from tests.vouchers.sales import start_sale
from tests.web.conftest import screenshot

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("browser_locale", ["en-US"])
def test_switching_city_shows_its_sales_and_shops_and_a_reload_keeps_it(page: Page) -> None:
    hangzhou = CityFactory(code="hangzhou", name="杭州", name_en="Hangzhou", x=120.1551, y=30.2741)
    food = ShopTypeFactory(name="美食", name_en="Food")
    ShopFactory(type=food, name="Shanghai Dumplings", x=121.4737, y=31.2304)
    west_lake = ShopFactory(type=food, city=hangzhou, name="West Lake Fish", x=120.1561, y=30.2741)
    start_sale(title="Shanghai sale")  # at a shop of the default city
    start_sale(title="Hangzhou sale", shop=west_lake)
    shop_services.shop_geo_rebuild()

    page.goto("/")
    chooser = page.get_by_label("City")
    expect(chooser).to_have_value("shanghai")
    expect(page.get_by_role("link", name="Shanghai sale")).to_be_visible()
    expect(page.get_by_role("link", name="Hangzhou sale")).to_have_count(0)

    chooser.select_option(label="Hangzhou")

    expect(page.get_by_role("link", name="Hangzhou sale")).to_be_visible()
    expect(page.get_by_role("link", name="Shanghai sale")).to_have_count(0)
    screenshot(page, "city-home")
    page.get_by_role("link", name="Food").click()
    expect(page.locator("article h3")).to_have_text(["West Lake Fish"])

    page.reload()

    expect(page.get_by_label("City")).to_have_value("hangzhou")
    expect(page.locator("article h3")).to_have_text(["West Lake Fish"])
    page.goto("/")
    expect(page.get_by_role("link", name="Hangzhou sale")).to_be_visible()
    expect(page.get_by_role("link", name="Shanghai sale")).to_have_count(0)
