"""Search and shop-list filters in a real browser: a Chinese word found with its hit marked
(as text inside <mark>, never markup), and a shop list narrowed by score."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from search import index
from shops import services as shop_services
from tests.factories import BlogFactory, ShopFactory, ShopTypeFactory
from tests.web.conftest import screenshot

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_search_a_chinese_word_and_see_the_hit_marked(page: Page) -> None:
    ShopFactory(name="海底捞火锅", area="人民广场", address="西藏中路 1 号")
    ShopFactory(name="纯K", area="静安寺")
    BlogFactory(title="<b>火锅</b>之夜", content="牛油锅底很香。")  # markup stays text
    index.rebuild()

    page.goto("/")
    page.get_by_label("搜索商户、笔记和用户").fill("火锅")
    page.get_by_role("button", name="搜索", exact=True).click()

    card = page.locator("article", has_text="海底捞火锅")
    expect(card.locator("mark")).to_have_text("火锅")
    expect(page.get_by_role("status")).to_have_text("找到 1 条“火锅”的结果。")
    expect(page.get_by_text("纯K")).to_have_count(0)
    screenshot(page, "search")

    page.get_by_role("tab", name="笔记").click()
    note = page.locator("article", has_text="之夜")
    expect(note.locator("mark")).to_have_text("火锅")
    expect(note.get_by_role("link", name="<b>火锅</b>之夜")).to_be_visible()  # as text
    assert page.locator("main b").count() == 0


def test_filter_the_shop_list_by_minimum_score_and_sort_it(page: Page) -> None:
    food = ShopTypeFactory(name="美食")
    ShopFactory(type=food, name="一般小馆", score=30, x=121.4737, y=31.2304)
    ShopFactory(type=food, name="好评餐厅", score=47, x=121.4737, y=31.2314)
    ShopFactory(type=food, name="超赞餐厅", score=49, x=121.4737, y=31.2324)
    shop_services.shop_geo_rebuild()

    page.goto(f"/#/shops?type={food.id}")
    expect(page.locator("article h3")).to_have_text(["一般小馆", "好评餐厅", "超赞餐厅"])
    page.get_by_text("筛选与排序").click()
    page.get_by_label("最低评分").select_option("4.5")
    page.get_by_label("排序").select_option("score")
    page.get_by_role("button", name="应用筛选").click()

    expect(page.locator("article h3")).to_have_text(["超赞餐厅", "好评餐厅"])
    screenshot(page, "shop-filters")
