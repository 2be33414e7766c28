"""The coupon's life in a real browser: claim, see the redeem code and its QR code (read
back with zbarimg), pay a bill with the best coupon, refund it, and a clerk redeeming."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User
from shops.models import ShopStaff
from tests.factories import NormalVoucherFactory, ShopFactory, UserFactory
from tests.web.conftest import log_in, screenshot
from vouchers.coupons import checkout, claims, services
from vouchers.models import ShopOrder, VoucherOrder, WriteOff

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _read_qr(page: Page, tmp_path: Path) -> str:
    """What the QR code on the page says, as a phone's scanner would read it."""
    if not shutil.which("zbarimg"):
        pytest.fail("zbarimg not found: `make test` installs Debian's zbar-tools")
    picture = tmp_path / "qr.png"
    page.get_by_role("img", name=re.compile("的二维码$")).screenshot(path=str(picture))
    scanned = subprocess.run(
        ["zbarimg", "--raw", "-q", str(picture)], capture_output=True, text=True, check=True
    )
    return scanned.stdout.strip()


def test_claim_a_coupon_and_show_its_code_as_digits_and_qr(page: Page, tmp_path: Path) -> None:
    shop = ShopFactory(name="老张面馆")
    NormalVoucherFactory(
        shop=shop,
        title="满100减20",
        pay_value=0,
        actual_value=2000,
        discount_type="full_reduction",
        amount_condition=10000,
        discount_amount=2000,
    )
    log_in(page, "13900000011")
    page.goto(f"/#/shops/{shop.id}")
    card = page.locator("article", has_text="满100减20")
    expect(card).to_contain_text("免费 · 减 ¥20，满 ¥100 可用")

    card.get_by_role("button", name="领取").click()
    expect(card.get_by_role("status")).to_contain_text("领到了！")
    card.get_by_role("link", name="查看").click()

    coupon = VoucherOrder.objects.get(user__phone="13900000011")
    code = coupon.redeem_code
    assert code is not None
    expect(page.get_by_label("核销码", exact=True)).to_have_text(
        f"{code[:4]} {code[4:8]} {code[8:]}"
    )
    assert _read_qr(page, tmp_path) == code  # the QR says exactly the code
    screenshot(page, "coupon")


def test_pay_a_bill_with_the_best_coupon_then_refund_it(page: Page) -> None:
    shop = ShopFactory(name="川味火锅")
    NormalVoucherFactory(shop=shop, title="¥15 代金券", pay_value=0, actual_value=1500)
    NormalVoucherFactory(
        shop=shop,
        title="8折",
        pay_value=0,
        actual_value=0,
        discount_type="percentage",
        discount_rate=80,
        max_discount=5000,
    )
    NormalVoucherFactory(
        shop=shop,
        title="满500减100",
        pay_value=0,
        actual_value=10000,
        discount_type="full_reduction",
        amount_condition=50000,
        discount_amount=10000,
    )
    log_in(page, "13900000012")
    page.goto(f"/#/shops/{shop.id}")
    for title in ("¥15 代金券", "8折", "满500减100"):
        card = page.locator("article", has_text=title)
        card.get_by_role("button", name="领取").click()
        expect(card.get_by_role("status")).to_contain_text("领到了！")
    page.get_by_role("link", name="在本店用券买单").click()

    page.get_by_label("消费金额（元）").fill("128.50")
    page.get_by_role("button", name="查找可用券").click()

    best = page.get_by_role("radio", name=re.compile("^8折"))
    expect(best).to_be_checked()  # 20 % of 128.50 beats ¥15
    expect(page.get_by_role("radio", name=re.compile("^满500减100"))).to_be_disabled()
    expect(page.locator(".summary")).to_have_text("消费 ¥128.50 · 券抵 \u2212¥25.70 · 实付 ¥102.80")
    screenshot(page, "checkout")
    page.get_by_role("button", name="支付 ¥102.80").click()
    expect(page.get_by_text("已支付 ¥102.80，优惠券抵扣 ¥25.70。")).to_be_visible()
    order = ShopOrder.objects.get()
    assert (order.amount, order.discount, order.payable) == (12850, 2570, 10280)
    assert order.coupon is not None
    assert order.coupon.status == "used"

    page.get_by_role("button", name="退款").click()
    expect(page.get_by_text("已退款；优惠券如仍在有效期内已退回。")).to_be_visible()
    order.refresh_from_db()
    assert order.status == "refunded"
    assert order.coupon.status == "paid"


def test_refund_a_paid_coupon_from_its_page(page: Page) -> None:
    shop = ShopFactory()
    voucher = NormalVoucherFactory(
        shop=shop, title="¥40 抵 ¥50", pay_value=4000, actual_value=5000, stock=2
    )
    log_in(page, "13900000014")
    page.goto(f"/#/shops/{shop.id}")
    page.get_by_role("button", name="领取").click()
    expect(page.get_by_text("领到了！请到“我的券”支付。")).to_be_visible()
    coupon = VoucherOrder.objects.get()
    page.goto(f"/#/orders/{coupon.id}")
    page.get_by_role("button", name="支付 ¥40").click()
    expect(page.get_by_label("核销码", exact=True)).to_be_visible()

    page.get_by_role("button", name="退款").click()

    expect(page.get_by_role("status")).to_have_text("已退款。")
    expect(page.get_by_label("核销码", exact=True)).to_have_count(0)  # no code to show
    expect(page.get_by_role("button", name="退款")).to_have_count(0)  # nothing left to do
    coupon.refresh_from_db()
    assert coupon.status == "refunded"
    voucher.refresh_from_db()
    assert voucher.stock == 2  # still on offer: the unit went back


def test_cancel_an_unpaid_coupon_from_my_vouchers(page: Page) -> None:
    shop = ShopFactory()
    NormalVoucherFactory(shop=shop, title="¥25 抵 ¥30", pay_value=2500, actual_value=3000, stock=3)
    log_in(page, "13900000013")
    page.goto(f"/#/shops/{shop.id}")
    page.get_by_role("button", name="领取").click()
    expect(page.get_by_text("领到了！请到“我的券”支付。")).to_be_visible()

    page.goto("/#/vouchers?tab=unpaid")
    page.get_by_role("button", name="取消订单").click()

    expect(page.get_by_text("已取消。")).to_be_visible()
    assert VoucherOrder.objects.get().status == "cancelled"
    assert VoucherOrder.objects.get().voucher.stock == 3  # the unit came back


def test_a_clerk_redeems_a_code_and_sees_the_day(page: Page, expected_http: set[int]) -> None:
    expected_http.add(409)  # the second try of the same code
    shop = ShopFactory(name="街角茶铺")
    voucher = NormalVoucherFactory(shop=shop, title="¥10 茶饮券", pay_value=0, actual_value=1000)
    customer = UserFactory()
    coupon = claims.voucher_claim(user_id=customer.id, voucher_id=voucher.id)
    code = coupon.redeem_code
    assert code is not None
    log_in(page, "13900000014")
    ShopStaff.objects.create(shop=shop, user=User.objects.get(phone="13900000014"))

    page.get_by_role("link", name="商户店员：核销券码").click()
    page.get_by_label("券码（12 位数字）").fill(f"{code[:4]} {code[4:8]} {code[8:]}")
    page.get_by_role("button", name="核销").click()

    expect(page.get_by_role("status")).to_contain_text("核销成功：\u2212¥10")
    expect(page.get_by_role("heading", name="本店今日核销（1）")).to_be_visible()
    assert WriteOff.objects.get().order_id == coupon.id
    screenshot(page, "redeem")
    page.get_by_label("券码（12 位数字）").fill(code)
    page.get_by_role("button", name="核销").click()
    expect(page.get_by_role("status")).to_have_text("这张券已经用过了。")


# A paid, unused coupon's card and the tab that lists it, in each language: the state has
# one name, from the client's one table (decision 466).
STATE_WORDS = {
    "en-US": {"off": "¥100 off", "state": "Unused", "page": "My vouchers", "bills": "My bills"},
    "zh-CN": {"off": "抵 ¥100", "state": "未使用", "page": "我的券", "bills": "我的买单"},
}


@pytest.mark.parametrize("browser_locale", ["en-US", "zh-CN"])
def test_my_vouchers_and_bills_name_the_shop_and_one_state(
    page: Page, browser_locale, fake_clock
) -> None:
    words = STATE_WORDS[browser_locale]
    me = UserFactory(phone="13900000015")
    for name in ("老张面馆", "川味火锅"):
        voucher = NormalVoucherFactory(
            shop=ShopFactory(name=name), title="限时秒杀 ¥100 代金券", pay_value=8000,
            actual_value=10000,
        )  # fmt: skip
        coupon = claims.voucher_claim(user_id=me.id, voucher_id=voucher.id)
        services.order_pay(order_id=coupon.id, user_id=me.id)
        # Order ids are time-ordered to the second only: two vouchers on different shards
        # claimed in one second may be listed either way round.
        fake_clock.advance(1)
    checkout.shop_order_create(user_id=me.id, shop_id=voucher.shop_id, amount=5000)
    log_in(page, "13900000015", language=browser_locale[:2])

    page.goto("/#/vouchers")
    expect(page.get_by_role("heading", name=words["page"])).to_be_visible()
    cards = page.locator("article", has_text="限时秒杀 ¥100 代金券")
    expect(cards).to_have_count(2)
    expect(cards.nth(0)).to_contain_text("川味火锅")  # newest first
    expect(cards.nth(1)).to_contain_text("老张面馆")
    for card in (cards.nth(0), cards.nth(1)):
        expect(card.locator(".muted")).to_contain_text(f"{words['off']} · {words['state']}")
        expect(card.locator(".state")).to_have_text(words["state"])
    expect(page.get_by_role("tab", selected=True)).to_have_text(words["state"])

    page.goto("/#/bills")
    expect(page.get_by_role("heading", name=words["bills"])).to_be_visible()
    bill = page.locator("article")
    expect(bill).to_have_count(1)
    expect(bill.get_by_role("link", name="川味火锅")).to_have_attribute(
        "href", f"#/shops/{voucher.shop_id}"
    )
