"""The web client in a real browser: log in with an SMS code, grab a flash-sale voucher,
like a blog, follow someone and see their new blog in the feed, sign in for the day."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime, timedelta

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User
from blogs import services as blogs
from blogs.models import Blog
from follows import services as follows
from tests.factories import BlogFactory, ShopFactory, UserFactory, VoucherFactory
from tests.helpers import FakeClock
from tests.vouchers.sales import drain_all, start_sale
from tests.web.conftest import log_in, screenshot
from toolkit import clock
from vouchers.models import VoucherOrder
from vouchers.sale import seckill

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_log_in_grab_a_voucher_pay_for_it_and_be_told_on_a_second_grab(
    page: Page, expected_http: set[int]
) -> None:
    expected_http.add(409)  # the second grab
    shop = ShopFactory(name="老张面馆")
    sale = start_sale(stock=10, shop=shop, title="¥100 秒杀券")
    page.goto("/#/login")
    screenshot(page, "login")

    log_in(page, "13900000001")
    page.goto(f"/#/shops/{shop.id}")
    card = page.locator("article", has_text="¥100 秒杀券")
    card.get_by_role("button", name="抢购").click()
    expect(card.get_by_role("status")).to_contain_text("抢到了！")
    screenshot(page, "shop")

    drain_all()  # what the Celery drain does within a second under `make run`
    # My vouchers opens where the API's list does, on the coupons ready to use: none yet.
    page.goto("/#/vouchers")
    expect(page.get_by_role("tab", name="未使用")).to_have_attribute("aria-selected", "true")
    expect(page.get_by_text("还没有可用的券。去首页抢购秒杀，或到店铺领一张。")).to_be_visible()
    page.get_by_role("tab", name="待支付").click()
    expect(page.get_by_text("¥100 秒杀券")).to_be_visible()
    pay = page.get_by_role("button", name=re.compile("^支付"))
    expect(pay).to_be_visible()
    pay.click()
    expect(page.get_by_text("支付成功，可在“未使用”中查看。")).to_be_visible()
    assert sale.orders.get().status == VoucherOrder.Status.PAID
    # Right after paying, the coupon is on the tab My vouchers opens on.
    page.goto("/#/")
    page.goto("/#/vouchers")
    expect(page.locator("article", has_text="¥100 秒杀券")).to_contain_text("未使用")
    screenshot(page, "my-vouchers")

    page.goto(f"/#/shops/{shop.id}")
    card = page.locator("article", has_text="¥100 秒杀券")
    card.get_by_role("button", name="抢购").click()
    expect(card.get_by_role("status")).to_contain_text("你已经抢到过这张券了")
    assert sale.orders.count() == 1


def test_a_sold_out_sale_says_so_and_sells_nothing(page: Page, expected_http: set[int]) -> None:
    expected_http.add(409)
    shop = ShopFactory()
    sale = start_sale(stock=1, shop=shop, title="最后一张")
    seckill.voucher_seckill(user_id=UserFactory().id, voucher_id=sale.id)  # someone was faster
    log_in(page, "13900000007")

    page.goto(f"/#/shops/{shop.id}")
    card = page.locator("article", has_text="最后一张")
    card.get_by_role("button", name="抢购").click()

    expect(card.get_by_role("status")).to_have_text("已抢光，下次早点来！")
    drain_all()
    assert sale.orders.count() == 1  # only the faster buyer's


def test_a_sale_not_started_counts_down_and_cannot_be_grabbed(page: Page) -> None:
    shop = ShopFactory()
    VoucherFactory(shop=shop, title="明日特惠")  # starts in an hour
    log_in(page, "13900000008")

    page.goto(f"/#/shops/{shop.id}")
    card = page.locator("article", has_text="明日特惠")

    expect(card.get_by_text(re.compile(r"^距开抢 0 时 59 分"))).to_be_visible()
    expect(card.get_by_role("button", name="抢购")).to_be_disabled()


def test_like_a_blog_and_appear_among_the_first_likers(page: Page) -> None:
    blog = BlogFactory(title="全城最好吃的小笼包", content="皮薄汤鲜。")
    log_in(page, "13900000002")

    page.goto(f"/#/blogs/{blog.id}")
    page.get_by_role("button", name="点赞").click()

    expect(page.get_by_role("button", name="♥ 已赞")).to_have_attribute("aria-pressed", "true")
    expect(page.get_by_label("最先点赞的人")).to_contain_text("user_")
    expect(page.get_by_text("1 个赞")).to_be_visible()
    screenshot(page, "blog")


def test_follow_someone_and_see_their_new_blog_in_the_feed(page: Page) -> None:
    author = UserFactory(nick_name="陈莉莉")
    log_in(page, "13900000003")
    page.goto(f"/#/users/{author.id}")

    page.get_by_role("button", name="关注").click()

    expect(page.get_by_role("button", name="已关注")).to_be_visible()
    expect(page.get_by_text("1 粉丝")).to_be_visible()
    screenshot(page, "user")
    blogs.blog_create(user_id=author.id, data={"title": "火锅之夜", "content": "很辣。"})
    page.goto("/#/feed")
    expect(page.get_by_role("link", name="火锅之夜")).to_be_visible()
    screenshot(page, "feed")


def test_a_feed_page_that_failed_to_load_can_be_tried_again(
    page: Page, expected_http: set[int]
) -> None:
    expected_http.add(503)
    author = UserFactory()
    log_in(page, "13900000006")
    reader = User.objects.get(phone="13900000006")
    follows.follow(user_id=reader.id, target_id=author.id)
    blogs.blog_create(user_id=author.id, data={"title": "清晨的饺子", "content": "c"})
    # The server is briefly unavailable for the first feed request.
    page.route(
        "**/api/feed", lambda route: route.fulfill(status=503, json={"detail": "服务繁忙。"})
    )

    page.goto("/#/feed")
    expect(page.get_by_role("status")).to_have_text("服务繁忙。")
    page.unroute("**/api/feed")
    page.get_by_role("button", name="重试").click()

    expect(page.get_by_role("link", name="清晨的饺子")).to_be_visible()
    expect(page.get_by_role("button", name="重试")).to_be_hidden()


def test_the_feed_scrolls_to_its_end_and_login_returns_to_the_asked_page(page: Page) -> None:
    author = UserFactory()
    reader_phone = "13900000005"
    log_in(page, reader_phone, via="/#/feed")  # logged out: sent to log in, then back
    expect(page.get_by_role("heading", name="关注动态")).to_be_visible()
    reader = User.objects.get(phone=reader_phone)
    follows.follow(user_id=reader.id, target_id=author.id)
    # A second apart: blogs of one millisecond come in id-as-text order (decision 113),
    # and "10" would then come before "9".
    published = FakeClock(time.time() - 60)
    clock.set_source(published)
    try:
        for i in range(25):
            blogs.blog_create(user_id=author.id, data={"title": f"笔记 {i:02d}", "content": "c"})
            published.advance(1)
    finally:
        clock.set_source(None)

    page.reload()
    end = page.get_by_text("已经看完啦。")
    more_or_end = (
        "n => document.querySelectorAll('#app article').length > n"
        " || document.body.innerText.includes('已经看完啦。')"
    )
    for _ in range(10):  # each scroll to the bottom brings the next page
        if end.is_visible():
            break
        shown = page.locator("#app article").count()
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        page.wait_for_function(more_or_end, arg=shown)
    expect(end).to_be_visible()
    titles = page.locator("#app article h3").all_inner_texts()
    assert titles == [f"笔记 {i:02d}" for i in range(24, -1, -1)]  # each once, newest first

    page.locator("#account-link").click()
    expect(page.locator("#account-link")).to_have_text("登录")


def test_write_a_blog_then_sign_in_and_see_the_calendar_mark(page: Page) -> None:
    log_in(page, "13900000004")
    page.goto("/#/write")
    page.get_by_label("标题").fill("安静的茶馆")
    page.get_by_label("体验如何？").fill("茉莉花茶，窗外是园子。")
    page.get_by_role("button", name="发布").click()
    expect(page.get_by_role("heading", name="安静的茶馆")).to_be_visible()

    page.goto("/#/sign")
    expect(page.locator("[data-count=month]")).to_have_text("0")
    expect(page.locator("[data-count=total]")).to_have_text("0")
    page.get_by_role("button", name="今日签到").click()

    expect(page.get_by_role("status")).to_contain_text("签到成功！")
    expect(page.locator(".stat:not([data-count])")).to_have_text("1")  # the streak
    expect(page.locator("[data-count=month]")).to_have_text("1")
    expect(page.locator("[data-count=total]")).to_have_text("1")
    expect(page.locator(".calendar .day.signed")).to_have_count(1)
    screenshot(page, "sign-in")


def test_home_on_the_demo_data_shows_types_sales_and_popular_notes(page: Page) -> None:
    from django.core.management import call_command

    call_command("seed_demo", "--force")  # what `make run` shows a new user

    page.goto("/")

    expect(page.get_by_role("navigation", name="商户分类")).to_contain_text("美食")
    expect(page.get_by_role("heading", name="正在秒杀")).to_be_visible()
    expect(page.get_by_role("heading", name="热门笔记")).to_be_visible()
    most_liked = Blog.objects.order_by("-liked", "-id").first()
    assert most_liked is not None
    expect(page.get_by_text(f"♥ {most_liked.liked}").first).to_be_visible()
    screenshot(page, "home")


def test_chinese_text_is_drawn_with_a_cjk_font(page: Page) -> None:
    shop = ShopFactory(name="老张面馆")
    page.goto(f"/#/shops/{shop.id}")
    expect(page.get_by_role("heading", name="老张面馆")).to_be_visible()

    # Without a CJK font every Chinese character is the same empty box: two different
    # characters drawn alike mean the page shows boxes, not names.
    drawn_alike = page.evaluate(
        """() => {
          const draw = (text) => {
            const canvas = document.createElement("canvas");
            canvas.width = canvas.height = 64;
            const pen = canvas.getContext("2d");
            pen.font = "48px " + getComputedStyle(document.body).fontFamily;
            pen.fillText(text, 4, 52);
            return canvas.toDataURL();
          };
          return draw("面") === draw("馆");
        }"""
    )

    assert not drawn_alike, "no CJK font: `make test` installs Debian's fonts-noto-cjk"


def test_a_shop_page_lists_shops_of_its_kind_nearby_and_links_to_them(page: Page) -> None:
    from shops import services as shops

    shop = ShopFactory(name="老张面馆", x=121.4737, y=31.2304)
    ShopFactory(name="街角面馆", type=shop.type, x=121.4747, y=31.2304)  # ~95 m
    ShopFactory(name="远方面馆", type=shop.type, x=121.55, y=31.2304)  # ~7 km
    ShopFactory(name="隔壁茶铺", x=121.4738, y=31.2304)  # close, but another kind
    shops.shop_geo_rebuild()

    page.goto(f"/#/shops/{shop.id}")
    section = page.get_by_role("region", name="附近")

    expect(section.get_by_role("listitem")).to_have_text([re.compile(r"^街角面馆 · 9\d 米$")])
    section.get_by_role("link", name="街角面馆").click()
    expect(page.get_by_role("heading", name="街角面馆")).to_be_visible()
    expect(page.get_by_role("region", name="附近")).to_contain_text("老张面馆")


def test_times_are_the_server_s_24_hour_whatever_the_browser_s_zone(browser, live_server) -> None:
    shop = ShopFactory()
    begin = clock.now() + timedelta(hours=1)
    VoucherFactory(
        shop=shop,
        title="Evening deal",
        begin_time=begin,
        end_time=datetime(begin.year + 1, 1, 5, 8, 31, tzinfo=UTC),  # 16:31 in Shanghai
    )
    context = browser.new_context(
        base_url=live_server.url, timezone_id="America/New_York", locale="en-US"
    )
    try:
        page = context.new_page()
        page.goto(f"/#/shops/{shop.id}")

        card = page.locator("article", has_text="Evening deal")
        expect(card).to_contain_text(f"ends {begin.year + 1}-01-05 16:31")  # not 3:31 AM
    finally:
        context.close()
