"""The README's screenshots, taken from the demo data `make run` shows (seed_demo), as
demo user 13800000001 (and the demo merchant, who runs the demo shop) see it; `make
screenshots` writes them to docs/screenshots/. Each page is checked for what makes it
worth showing; the other browser tests prove the behaviour behind it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from playwright.sync_api import Browser, Page, expect

from accounts.demo import MERCHANT_PHONE
from accounts.models import User
from blogs.models import Blog
from merchants.demo import merchant_shops
from tests.vouchers.sales import drain_all
from tests.web.conftest import PHONE, log_in, screenshot
from toolkit import clock
from vouchers.coupons import claims
from vouchers.demo import DISCOUNT_VOUCHERS, SALE_TITLE, demo_shops
from vouchers.models import Voucher, VoucherOrder
from vouchers.sale import challenge

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_the_readme_screenshots_show_the_demo(
    page: Page, browser: Browser, live_server, monkeypatch: pytest.MonkeyPatch
) -> None:
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
    # The demo's biggest sale asks its challenge first (decision 500): a question whose
    # answer the test knows, shown at the first press, answered at the second.
    assert sale.challenge
    monkeypatch.setattr(
        challenge, "new_challenge", lambda: challenge.Challenge("shot", "12 + 7 = ?", 19, 180)
    )
    card.get_by_role("button", name="抢购").click()
    card.locator("input[inputmode=numeric]").fill("19")
    card.get_by_role("button", name="抢购").click()
    expect(card.get_by_role("status")).to_contain_text("抢到了！")
    page.evaluate("window.scrollTo(0, 0)")  # the page's header on top, not where the button was
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

    # A shop of the demo merchant's: its score, its reviews and the shop's replies (the
    # second: the first has two months of reviews, too long a page for the README).
    reviewed = merchant_shops()[1]
    assert reviewed.comments > 0
    page.goto(f"/#/shops/{reviewed.id}")
    expect(page.get_by_role("heading", name=reviewed.name)).to_be_visible()
    expect(page.locator("article .reply-body").first).to_be_visible()
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
    expect(page.get_by_role("heading", name=f"{me.nick_name} 的粉丝")).to_be_visible()
    expect(page.locator("main li").first).to_be_visible()
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

    # The demo merchant, who runs the demo shop, redeems a coupon the demo user claimed there.
    title, _ = DISCOUNT_VOUCHERS[0]
    voucher = Voucher.objects.get(shop=shop, title=title)
    coupon = claims.voucher_claim(user_id=me.id, voucher_id=voucher.id)  # free: paid at once
    assert coupon.redeem_code is not None
    merchant = browser.new_context(viewport=PHONE, base_url=live_server.url, locale="zh-CN")
    merchant_page = merchant.new_page()
    try:
        log_in(merchant_page, MERCHANT_PHONE)
        merchant_page.get_by_role("link", name="商户店员：核销券码").click()
        code = coupon.redeem_code
        merchant_page.get_by_label("券码（12 位数字）").fill(f"{code[:4]} {code[4:8]} {code[8:]}")
        merchant_page.get_by_label("消费金额（元，满减券和折扣券需填写）").fill("168")
        merchant_page.get_by_role("button", name="核销").click()
        # The redeem form's own status: the page may still hold the previous view's a moment.
        expect(merchant_page.get_by_role("status").filter(has_text="核销成功")).to_be_visible()
        screenshot(merchant_page, "redeem", readme=True)

        # Its dashboard of the demo shop over 30 days: a month of visitors, the past
        # sale's busy days, the weekly rating rising, reviews awaiting its reply.
        merchant_page.goto(f"/#/merchant?shop={shop.id}&days=30")
        expect(merchant_page.get_by_role("heading", name="我的店铺")).to_be_visible()
        expect(merchant_page.get_by_label("店铺")).to_have_value(str(shop.id))
        traffic = merchant_page.get_by_role("img", name="访客数与浏览量")
        expect(traffic.locator("[data-series=uv] circle")).to_have_count(30)
        trend = merchant_page.get_by_role("img", name="每周平均评分")
        expect(trend.locator("[data-series=rating] circle")).to_have_count(8)
        expect(merchant_page.locator('[data-number="sales"] .stat')).not_to_have_text("0")
        expect(merchant_page.locator(".awaiting li").first).to_be_visible()
        screenshot(merchant_page, "merchant-dashboard", readme=True)

        # The demo shop's offers (its published sale with the stock left, a draft), and
        # the hours editor of the branch open past midnight.
        merchant_page.goto(f"/#/merchant?shop={shop.id}&tab=offers")
        offers = merchant_page.get_by_role("region", name="优惠活动")
        expect(offers.get_by_role("heading", name=re.compile("已发布$"))).to_have_count(1)
        expect(offers.get_by_role("heading", name=re.compile("草稿$"))).to_have_count(1)
        screenshot(merchant_page, "merchant-offers", readme=True)
        late = merchant_shops()[2]
        merchant_page.goto(f"/#/merchant?shop={late.id}&tab=profile")
        expect(merchant_page.get_by_text("次日").first).to_be_visible()
        screenshot(merchant_page, "merchant-hours", readme=True)
    finally:
        merchant.close()
