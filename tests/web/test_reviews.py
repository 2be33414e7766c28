"""Reviews in a real browser: a user writes a note about a shop with four stars from its
page, and the shop's score, histogram and review list show it on the next load."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from blogs.models import Blog
from tests.factories import ShopFactory
from tests.web.conftest import log_in, screenshot

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_rate_a_shop_and_see_its_score_and_histogram_change(page: Page) -> None:
    shop = ShopFactory(name="老张面馆", score=0)  # no ratings yet
    log_in(page, "13900000021")
    page.goto(f"/#/shops/{shop.id}")
    expect(page.get_by_text("暂无评分")).to_be_visible()
    expect(page.get_by_text("还没有点评，来写第一条吧。")).to_be_visible()

    page.get_by_role("link", name="写点评").click()
    expect(page.get_by_role("heading", name="点评 老张面馆")).to_be_visible()
    page.get_by_label("标题").fill("面条劲道")
    page.get_by_label("体验如何？").fill("汤头浓，牛肉给得足。")
    # The rating: five stars in one row; a tap on one, then the arrow keys (decision 467).
    stars = page.locator(".star-picker .star")
    tops = {round(stars.nth(i).bounding_box()["y"]) for i in range(5)}  # type: ignore[index]
    assert len(tops) == 1, tops  # one row at phone width, no wrapping
    page.get_by_label("2 星").click()
    expect(page.get_by_label("2 星")).to_be_checked()
    expect(page.locator(".star-picker .star.on")).to_have_count(2)
    page.get_by_label("体验如何？").focus()
    page.keyboard.press("Tab")  # into the group, at its choice
    expect(page.get_by_label("2 星")).to_be_focused()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(page.get_by_label("4 星")).to_be_checked()
    expect(page.get_by_label("4 星")).to_be_focused()
    expect(page.locator(".star-picker .star.on")).to_have_count(4)
    expect(page.locator(".star-picker .star-value")).to_have_text("4 星")
    screenshot(page, "write-review")
    page.get_by_role("button", name="发布").click()
    expect(page.get_by_role("heading", name="面条劲道")).to_be_visible()
    expect(page.get_by_role("img", name="4 星")).to_be_visible()
    assert Blog.objects.get().rating == 4

    page.goto(f"/#/shops/{shop.id}")
    expect(page.get_by_text("★ 4.0")).to_be_visible()
    reviews = page.get_by_role("region", name="点评")
    expect(reviews.get_by_role("heading", name="1 条点评")).to_be_visible()
    four = reviews.locator(".bar", has_text="4 星")
    expect(four).to_contain_text("1")
    expect(four.locator("meter")).to_have_attribute("value", "1")
    expect(reviews.get_by_role("link", name="面条劲道")).to_be_visible()
    screenshot(page, "shop-reviews")
