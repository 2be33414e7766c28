"""Opening hours in a real browser: at 01:00 a shop open across midnight shows "Open now" on
its card and its page, a shop open by day "Closed", and the list's toggle keeps the open
ones. The server runs in this process, so the project clock (toolkit.clock) is set to
01:00 local time today; English, as these strings' Chinese comes with the next catalogue."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, time

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from shops import hours
from shops import services as shop_services
from tests.factories import ShopFactory, ShopTypeFactory
from tests.helpers import FakeClock
from tests.web.conftest import screenshot
from toolkit import clock

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def one_in_the_morning() -> Iterator[None]:
    today = timezone.localdate()
    moment = timezone.make_aware(datetime.combine(today, time(1, 0)))
    clock.set_source(FakeClock(moment.timestamp()))
    try:
        yield
    finally:
        clock.set_source(None)


@pytest.mark.parametrize("browser_locale", ["en-US"])
def test_a_shop_open_across_midnight_shows_open_at_one_in_the_morning(
    page: Page, one_in_the_morning: None
) -> None:
    bars = ShopTypeFactory(name="酒吧", name_en="Bars")
    night = {"weekly": {day: [["18:00", "02:00"]] for day in hours.DAYS}}
    day = {"weekly": {day: [["09:00", "18:00"]] for day in hours.DAYS}}
    late = ShopFactory(type=bars, name="Night Owl", x=121.4737, y=31.2304)
    cafe = ShopFactory(type=bars, name="Day Cafe", x=121.4747, y=31.2304)
    shop_services.shop_hours_set(shop_id=late.id, hours=night)  # open_hours follows
    shop_services.shop_hours_set(shop_id=cafe.id, hours=day)
    shop_services.shop_geo_rebuild()

    page.goto(f"/#/shops?type={bars.id}")
    owl = page.locator("article", has_text="Night Owl")
    expect(owl.locator(".open-now")).to_have_text("Open now")
    expect(page.locator("article", has_text="Day Cafe").locator(".open-now")).to_have_text("Closed")
    screenshot(page, "shop-open-now")

    page.get_by_label("Open now only").check()
    expect(page.locator("article h3")).to_have_text(["Night Owl"])
    page.get_by_label("Open now only").uncheck()
    expect(page.locator("article h3")).to_have_text(["Night Owl", "Day Cafe"])

    owl.get_by_role("link", name="Night Owl").click()
    expect(page.get_by_role("heading", name="Night Owl")).to_be_visible()
    expect(page.locator("#app .open-now")).to_have_text(["Open now"])
    expect(page.get_by_text("open 18:00-02:00")).to_be_visible()  # the derived legacy text
