"""Issue 38's "done when", in real browsers end to end: a user claims a shop and an operator
approves the claim in the admin; the new owner fixes the hours (open across midnight,
seen at one in the morning), drafts a flash sale that an operator publishes, and a buyer
grabs it in the client (the drain stores the order); the owner replies to the buyer's
review, which the reviewer sees under it and in their notifications; the owner reads the
week's numbers on the dashboard. English, as the merchant area's words are new."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from blogs.models import ReviewReply
from merchants.models import OfferDraft, ShopClaim
from shops.models import ShopStaff
from tests.factories import BlogFactory, ShopFactory, UserFactory
from tests.vouchers.sales import drain_all
from tests.web.conftest import PHONE, log_in, screenshot
from tests.web.merchant_steps import (
    admin_decides,
    local_input,
    one_in_the_morning,
    operator_in_admin,
)
from vouchers.models import VoucherOrder
from vouchers.sale import shard

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def browser_locale() -> str:
    return "en-US"


@pytest.fixture
def buyer_context(browser: Browser, live_server) -> Iterator[BrowserContext]:
    context = browser.new_context(viewport=PHONE, base_url=live_server.url, locale="en-US")
    yield context
    context.close()


def test_a_shop_is_claimed_run_and_sells_end_to_end(
    page: Page,
    browser: Browser,
    live_server,
    buyer_context: BrowserContext,
    expected_http: set[int],
) -> None:
    expected_http.add(404)  # the admin asks for a favicon
    shop = ShopFactory(name="Old Zhang Noodles")
    buyer = UserFactory(phone="13900000191", nick_name="Xiao Wang")
    review = BlogFactory(shop=shop, user=buyer, rating=3, title="Slow but tasty")
    shard.ensure_groups()
    with one_in_the_morning() as now, operator_in_admin(browser, live_server.url) as admin:
        # A user claims the shop; an operator approves.
        log_in(page, "13900000190", language="en")
        page.goto(f"/#/shops/{shop.id}")
        claim = page.get_by_role("region", name="Run this shop?")
        claim.get_by_role("button", name="Claim this shop").click()
        claim.get_by_label("How can an operator check that you run this shop?").fill(
            "I am the owner: licence 310101-0042."
        )
        claim.get_by_role("button", name="Send the claim").click()
        expect(claim.locator('[data-claim="pending"]')).to_be_visible()
        admin_decides(
            admin,
            f"/admin/merchants/shopclaim/{ShopClaim.objects.get().id}/change/",
            "Approve",
            "now owns Old Zhang Noodles",
        )

        # The owner fixes the hours: every night 18:00-02:00.
        page.reload()
        page.get_by_role("link", name="You own this shop").click()
        page.get_by_role("link", name="Profile & hours").click()
        hours = page.get_by_role("form", name="Opening hours, price and phone")
        hours.get_by_role("button", name="Add a range on Monday").click()
        hours.get_by_label("Monday, range 1: opens").fill("18:00")
        hours.get_by_label("Monday, range 1: closes").fill("02:00")
        hours.get_by_role("button", name="Copy Monday to every day").click()
        hours.get_by_role("button", name="Save hours, price and phone").click()
        expect(hours.get_by_role("status")).to_have_text("Saved.")

        # ... drafts a flash sale on now, submits it; an operator publishes it.
        page.get_by_role("link", name="Offers").click()
        page.get_by_text("Draft a new offer").click()
        draft = page.get_by_role("form", name="New offer")
        draft.get_by_label("Title", exact=True).fill("Midnight noodles ¥30 for ¥50")
        draft.get_by_label("Price (¥)").fill("30")
        draft.get_by_label("Face value (¥)").fill("50")
        draft.get_by_label("Stock (units)").fill("20")
        draft.get_by_label("Sale starts").fill(local_input(now - timedelta(minutes=30)))
        draft.get_by_label("Sale ends").fill(local_input(now + timedelta(hours=2)))
        draft.get_by_role("button", name="Save the draft").click()
        offer = page.locator("article.offer")
        offer.get_by_role("button", name="Submit for review").click()
        expect(offer.locator(".state")).to_have_text("Waiting for an operator")
        admin_decides(
            admin,
            f"/admin/merchants/offerdraft/{OfferDraft.objects.get().id}/change/",
            "Publish",
            "Published as",
        )

        # A buyer finds the shop open at one in the morning and grabs the sale.
        buying = buyer_context.new_page()
        log_in(buying, str(buyer.phone), language="en")
        buying.goto(f"/#/shops/{shop.id}")
        expect(buying.locator("#app .open-now")).to_have_text(["Open now"])
        sale = buying.locator("article", has_text="Midnight noodles")
        sale.get_by_role("button", name="Grab").click()
        expect(sale.get_by_role("status")).to_contain_text("Got it!")
        assert drain_all() == 1
        order = VoucherOrder.objects.get()
        assert (order.user_id, order.voucher.shop_id) == (buyer.id, shop.id)

        # The owner answers the buyer's review; the reviewer reads it and is told.
        page.goto(f"/#/shops/{shop.id}")
        page.wait_for_load_state("networkidle")
        card = page.get_by_role("region", name="Reviews").locator(
            "article", has_text="Slow but tasty"
        )
        card.get_by_role("button", name="Reply").click()
        card.get_by_label("Your reply, as the shop").fill(
            "Sorry! We open at 18:00 now, noodles till 2."
        )
        card.get_by_role("button", name="Publish reply").click()
        expect(card.get_by_role("region", name="Merchant's reply")).to_contain_text("till 2")
        assert ReviewReply.objects.get().review_id == review.id

        buying.goto(f"/#/blogs/{review.id}")
        expect(buying.get_by_role("region", name="Merchant's reply")).to_contain_text(
            "Sorry! We open at 18:00 now"
        )
        buying.goto("/#/notifications")
        expect(buying.locator("#notifications")).to_contain_text(
            "Old Zhang Noodles replied to your review “Slow but tasty”"
        )

        # The week's numbers on the dashboard.
        page.goto(f"/#/merchant?shop={shop.id}&tab=dashboard")
        expect(page.locator('[data-number="sales"] .stat')).to_have_text("1")
        expect(page.locator('[data-number="claims"] .stat')).to_have_text("1")
        expect(page.locator('[data-number="awaiting"] .stat')).to_have_text("0")
        expect(page.get_by_text("Every review has the shop's reply.")).to_be_visible()
        screenshot(page, "merchant-journey-dashboard")
    assert ShopStaff.objects.get(shop=shop).role == ShopStaff.Role.OWNER
