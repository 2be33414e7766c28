"""The README's screenshots, taken from the demo data `make run` shows (seed_demo), as
demo user 13800000001 (and the demo shop's clerk) see it; `make screenshots` writes them
to docs/screenshots/. Each page is checked for what makes it worth showing; the other
browser tests prove the behaviour behind it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from playwright.sync_api import Browser, Page, expect

from accounts.models import User
from blogs.models import Blog
from dianping import clock
from shops.models import Shop
from tests.vouchers.sales import drain_all
from tests.web.conftest import PHONE, log_in, screenshot
from vouchers.coupons import claims
from vouchers.demo import DISCOUNT_VOUCHERS, SALE_TITLE, demo_shops
from vouchers.models import Voucher, VoucherOrder

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_the_readme_screenshots_show_the_demo(page: Page, browser: Browser, live_server) -> None:
    call_command("seed_demo", "--force")  # what `make run` loads, and indexes
    call_command("rebuild_search_index")
    me = User.objects.get(phone="13800000001")
    shop = demo_shops()[0]  # the flash sale on now and the coupons of each kind are here
    now = clock.now()
    sale = Voucher.objects.get(title=SALE_TITLE, begin_time__lte=now, end_time__gt=now)

    page.goto("/")
    expect(page.get_by_role("heading", name="正在秒杀")).to_be_visible()
    expect(page.get_by_role("heading", name="热门笔记")).to_be_visible()
    screenshot(page, "home", readme=True)
    page.goto("/#/login")
    expect(page.get_by_role("heading", name="登录")).to_be_visible()
    screenshot(page, "login", readme=True)
    log_in(page, "13800000001")

    page.goto(f"/#/shops/{shop.id}")
    card = page.locator("article", has_text=SALE_TITLE)
    card.get_by_role("button", name="抢购").click()
    expect(card.get_by_role("status")).to_contain_text("抢到了！")
    screenshot(page, "shop", readme=True)
    drain_all()  # what the worker does within a second
    order = VoucherOrder.objects.get(user=me, voucher=sale)
    page.goto(f"/#/orders/{order.id}")
    page.get_by_role("button", name=re.compile("^支付")).click()
    expect(page.get_by_label("核销码", exact=True)).to_be_visible()
    screenshot(page, "coupon", readme=True)
    page.goto("/#/vouchers")
    expect(page.locator("article", has_text=SALE_TITLE)).to_contain_text("未使用")
    screenshot(page, "my-vouchers", readme=True)

    page.goto(f"/#/checkout?shop={shop.id}")
    page.get_by_label("消费金额（元）").fill("168")
    page.get_by_role("button", name="查找可用券").click()
    expect(page.locator(".summary")).to_contain_text("实付")
    screenshot(page, "checkout", readme=True)

    reviewed = Shop.objects.order_by("-comments", "id").first()  # the most reviewed
    assert reviewed is not None
    assert reviewed.comments > 0
    page.goto(f"/#/shops/{reviewed.id}")
    expect(page.get_by_role("heading", name=reviewed.name)).to_be_visible()
    expect(page.locator("article").first).to_be_visible()
    screenshot(page, "shop-reviews", readme=True)

    blog = Blog.objects.exclude(user=me).order_by("-liked", "-id").first()
    assert blog is not None
    page.goto(f"/#/blogs/{blog.id}")
    expect(page.get_by_role("heading", name=blog.title)).to_be_visible()
    screenshot(page, "blog", readme=True)
    page.goto(f"/#/users/{blog.user_id}")
    expect(page.get_by_role("heading", name=blog.user.nick_name)).to_be_visible()
    screenshot(page, "user", readme=True)
    page.goto(f"/#/users/{me.id}/followers")
    # The list's own rows: "article" matched the user page's notes, still on screen for a
    # moment after the hash changed (the followers page has none).
    expect(page.locator("ul.people li").first).to_be_visible()
    screenshot(page, "followers", readme=True)
    page.goto("/#/feed")
    expect(page.locator("article").first).to_be_visible()
    screenshot(page, "feed", readme=True)
    page.goto("/#/notifications")
    # The page's own cards: "li, article" also matched the feed's notes, still on screen
    # for a moment after the hash changed, so the shot could be taken before the inbox.
    expect(page.locator("#notifications .notification").first).to_be_visible()
    screenshot(page, "notifications", readme=True)
    page.goto("/#/sign")
    page.get_by_role("button", name="签到").click()
    expect(page.get_by_role("status")).to_contain_text("连续")
    screenshot(page, "sign-in", readme=True)

    page.goto("/")
    page.get_by_label("搜索商户、笔记和用户").fill("生煎")
    page.get_by_role("button", name="搜索", exact=True).click()
    expect(page.get_by_role("link", name=re.compile("生煎")).first).to_be_visible()
    screenshot(page, "search", readme=True)

    page.goto("/#/write")
    page.get_by_label("标题").fill("周末的生煎")
    page.get_by_label("体验如何？").fill("底脆汁多，排队十分钟也值。")
    demo_pictures = Path(settings.MEDIA_ROOT) / "demo"  # drawn by seed_demo
    photos = [str(demo_pictures / f"shop-1-{n}.jpg") for n in range(2)]
    page.get_by_label("图片（最多 9 张）").set_input_files(photos)
    expect(page.locator("form img")).to_have_count(2)
    screenshot(page, "write-with-photos", readme=True)

    # The demo shop's clerk redeems a coupon the demo user claimed there.
    title, _ = DISCOUNT_VOUCHERS[0]
    voucher = Voucher.objects.get(shop=shop, title=title)
    coupon = claims.voucher_claim(user_id=me.id, voucher_id=voucher.id)  # free: paid at once
    assert coupon.redeem_code is not None
    clerk = browser.new_context(viewport=PHONE, base_url=live_server.url, locale="zh-CN")
    clerk_page = clerk.new_page()
    try:
        log_in(clerk_page, "13800000099")
        clerk_page.get_by_role("link", name="商户店员：核销券码").click()
        code = coupon.redeem_code
        clerk_page.get_by_label("券码（12 位数字）").fill(f"{code[:4]} {code[4:8]} {code[8:]}")
        clerk_page.get_by_label("消费金额（元，满减券和折扣券需填写）").fill("168")
        clerk_page.get_by_role("button", name="核销").click()
        # The redeem form's own status: the page may still hold the previous view's a moment.
        expect(clerk_page.get_by_role("status").filter(has_text="核销成功")).to_be_visible()
        screenshot(clerk_page, "redeem", readme=True)
    finally:
        clerk.close()
