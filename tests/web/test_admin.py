"""The admin in a real browser: an operator watches a flash sale live, its numbers and
charts moving as buyers grab (one of them from the web client), the drain stores and a
letter goes dead."""

from __future__ import annotations

import urllib.request

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.factories import UserFactory
from tests.metrics import TOKEN, Samples, samples_of, value
from tests.vouchers.sales import drain_all, start_sale
from tests.web.conftest import PHONE, log_in, screenshot
from toolkit.errors import Conflict
from vouchers import keys
from vouchers.sale import seckill, shard

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _number(page: Page, name: str):
    return page.locator(f'#live-sale [data-number="{name}"]')


def _points(page: Page, series: str) -> list[str]:
    """The "x,y" points of one chart line (y grows downwards, 160 is the floor)."""
    return (page.locator(f'polyline[data-series="{series}"]').get_attribute("points") or "").split()


def _scrape(base_url: str) -> Samples:
    request = urllib.request.Request(
        f"{base_url}/metrics", headers={"Authorization": f"Bearer {TOKEN}"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return samples_of(response.read().decode())


def test_an_operator_watches_a_sale_live(
    page: Page, browser: Browser, live_server, redis_client, expected_http: set[int]
) -> None:
    expected_http.add(404)  # Django's admin names no icon: the browser asks for /favicon.ico
    operator = UserFactory(username="operator", is_staff=True, is_superuser=True)
    operator.set_password("right-password-123")
    operator.save()
    sale = start_sale(stock=5, title="直播秒杀券")
    page.goto("/admin/login/?next=/admin/")
    page.locator("#id_username").fill("operator")
    page.locator("#id_password").fill("right-password-123")
    page.locator("input[type=submit]").click()
    page.goto(f"/admin/vouchers/voucher/{sale.id}/change/")
    page.get_by_role("link", name="秒杀实况").click()

    expect(page.get_by_role("heading", name="秒杀实况：直播秒杀券")).to_be_visible()
    expect(_number(page, "stock_left")).to_have_text("5")
    # The counters live as long as the process: this test reads from where they stand.
    accepted_before = int(_number(page, "accepted").inner_text())

    buyers = [UserFactory() for _ in range(2)]
    for buyer in buyers:
        seckill.voucher_seckill(user_id=buyer.id, voucher_id=sale.id)
    # A third buyer grabs from the web client, in a browser of their own.
    shopper = browser.new_context(viewport=PHONE, base_url=live_server.url, locale="zh-CN")
    try:
        shop_page = shopper.new_page()
        log_in(shop_page, "13900000301")
        shop_page.goto(f"/#/shops/{sale.shop_id}")
        card = shop_page.locator("article", has_text="直播秒杀券")
        card.get_by_role("button", name="抢购").click()
        expect(card.get_by_role("status")).to_contain_text("抢到了！")
    finally:
        shopper.close()
    with pytest.raises(Conflict):  # a second grab: refused as a duplicate
        seckill.voucher_seckill(user_id=buyers[0].id, voucher_id=sale.id)

    expect(_number(page, "stock_left")).to_have_text("2")
    expect(_number(page, "accepted")).to_have_text(str(accepted_before + 3))
    expect(_number(page, "pending")).to_have_text("3")
    expect(page.locator("[data-refusals]")).to_contain_text("duplicate")
    # A rate above zero was drawn: a point of the accepted line stands above the floor.
    accepted_line = _points(page, "accepted_rate")
    assert min(float(point.split(",")[1]) for point in accepted_line) < 160
    assert len(_points(page, "stock_left")) >= 2

    # The drain stores the orders; a malformed entry is dead-lettered.
    shard_no = shard.shard_of(sale.id)
    redis_client.xadd(keys.seckill_orders(shard_no), {"voucher": str(sale.id), "user": "x"})
    drain_all()
    expect(_number(page, "persisted")).to_have_text("3")
    expect(_number(page, "pending")).to_have_text("0")
    expect(_number(page, "dead_letters")).to_have_text("1")

    # What the page shows is what Prometheus would scrape.
    samples = _scrape(live_server.url)
    sale_total = "dianping_seckill_requests_total"
    accepted = value(samples, sale_total, voucher=str(sale.id), verdict="accepted")
    assert _number(page, "accepted").inner_text() == str(int(accepted))
    stock_left = value(samples, "dianping_seckill_stock_left", voucher=str(sale.id))
    assert _number(page, "stock_left").inner_text() == str(int(stock_left))
    dead = value(samples, "dianping_seckill_dead_letters", shard=str(shard_no))
    assert _number(page, "dead_letters").inner_text() == str(int(dead))
    screenshot(page, "admin-live-sale")
