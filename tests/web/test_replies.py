"""A shop's reply in a real browser: the shop's clerk opens the shop's page, replies to a
review under it, edits and deletes the reply; a customer sees the reply under the review.
In English: the reply's words are new and join the Chinese catalogue with the next
translation pass (the other browser tests prove the Chinese side of the client)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from blogs.models import ReviewReply
from shops.models import ShopStaff
from tests.factories import BlogFactory, ShopFactory, UserFactory
from tests.web.conftest import log_in, screenshot

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _open(page: Page, url: str) -> None:
    """Go to a page of the client and let it settle: a button found while the page still
    paints may be replaced under the click."""
    page.goto(url)
    page.wait_for_load_state("networkidle")


@pytest.fixture
def browser_locale() -> str:
    return "en-US"


def test_a_clerk_replies_to_a_review_and_it_shows_under_it(page: Page) -> None:
    shop = ShopFactory(name="Old Zhang Noodles")
    review = BlogFactory(shop=shop, rating=3, title="Slow but tasty", content="Waited 30 min.")
    clerk = UserFactory(phone="13900000061")
    ShopStaff.objects.create(shop=shop, user=clerk, role=ShopStaff.Role.CLERK)
    log_in(page, str(clerk.phone), language="en")

    _open(page, f"/#/shops/{shop.id}")
    reviews = page.get_by_role("region", name="Reviews")
    card = reviews.locator("article", has_text="Slow but tasty")
    expect(card).to_be_visible()
    card.get_by_role("button", name="Reply").click()
    card.get_by_label("Your reply, as the shop").fill("Sorry for the wait: we added a cook.")
    card.get_by_role("button", name="Publish reply").click()

    reply = card.get_by_role("region", name="Merchant's reply")
    expect(reply.get_by_role("status")).to_have_text("Reply published.")
    expect(reply).to_contain_text("Old Zhang Noodles")
    expect(reply).to_contain_text("Sorry for the wait: we added a cook.")
    screenshot(page, "shop-reply")
    assert ReviewReply.objects.get(review=review).text == "Sorry for the wait: we added a cook."

    card.get_by_role("button", name="Edit reply").click()
    card.get_by_label("Your reply, as the shop").fill("Thanks! We added a cook.")
    card.get_by_role("button", name="Publish reply").click()
    expect(reply).to_contain_text("Thanks! We added a cook.")

    page.reload()  # from the API (its cached documents evicted by the writes)
    card = page.get_by_role("region", name="Reviews").locator("article", has_text="Slow but tasty")
    expect(card.get_by_role("region", name="Merchant's reply")).to_contain_text(
        "Thanks! We added a cook."
    )

    page.goto(f"/#/blogs/{review.id}")  # the note's page shows it too
    expect(page.get_by_role("region", name="Merchant's reply")).to_contain_text(
        "Thanks! We added a cook."
    )

    _open(page, f"/#/shops/{shop.id}")
    card = page.get_by_role("region", name="Reviews").locator("article", has_text="Slow but tasty")
    page.once("dialog", lambda dialog: dialog.accept())
    card.get_by_role("button", name="Delete reply").click()
    expect(card.get_by_role("status")).to_have_text("Reply deleted.")
    expect(card.get_by_role("button", name="Reply")).to_be_visible()
    assert not ReviewReply.objects.exists()


def test_a_customer_sees_the_reply_but_no_editor(page: Page) -> None:
    shop = ShopFactory(name="Little Li BBQ")
    review = BlogFactory(shop=shop, rating=5, title="Best skewers")
    ReviewReply.objects.create(review=review, shop=shop, text="See you again!")
    log_in(page, "13900000062", language="en")

    page.goto(f"/#/shops/{shop.id}")

    card = page.get_by_role("region", name="Reviews").locator("article", has_text="Best skewers")
    expect(card.get_by_role("region", name="Merchant's reply")).to_contain_text("See you again!")
    expect(card.get_by_role("button", name="Report")).to_be_visible()
    expect(card.get_by_role("button", name="Reply")).to_have_count(0)
    expect(card.get_by_role("button", name="Edit reply")).to_have_count(0)
