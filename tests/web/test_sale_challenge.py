"""A sale with a challenge in the browser (decision 500): the first press of Grab shows
the question, a wrong answer brings a new one and sells nothing, the right one grabs."""

from __future__ import annotations

import itertools

import pytest
from playwright.sync_api import Page, expect

from tests.factories import ShopFactory
from tests.vouchers.sales import start_sale
from tests.web.conftest import log_in
from vouchers.sale import challenge, shard

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def browser_locale() -> str:
    return "en-US"


@pytest.fixture
def known_questions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Questions whose answers the test knows (the picture is for people): 3 + n = ?"""
    numbers = itertools.count(1)

    def known() -> challenge.Challenge:
        n = next(numbers)
        return challenge.Challenge(f"known-{n}", f"3 + {n} = ?", 3 + n, 180)

    monkeypatch.setattr(challenge, "new_challenge", known)


def test_a_buyer_answers_the_sales_challenge_before_the_grab(
    page: Page, expected_http: set[int], known_questions: None, redis_client
) -> None:
    expected_http.add(403)  # the wrong answer
    shop = ShopFactory()
    sale = start_sale(stock=5, shop=shop, title="Guarded sale", challenge=True)
    log_in(page, "13900000021", language="en")
    page.goto(f"/#/shops/{shop.id}")
    card = page.locator("article", has_text="Guarded sale")
    grab = card.get_by_role("button", name="Grab")

    grab.click()
    expect(card.get_by_role("img", name="Challenge question")).to_be_visible()
    expect(card.get_by_role("status")).to_have_text(
        "Answer the question in the picture, then press Grab."
    )
    card.get_by_label("Your answer").fill("99")  # 3 + 1 is not 99
    grab.click()
    expect(card.get_by_role("status")).to_have_text("Wrong answer: here is a new question.")
    assert redis_client.get(shard.stock_key(sale.id)) == b"5"  # nothing sold
    card.get_by_label("Your answer").fill("5")  # the new question: 3 + 2
    grab.click()

    expect(card.get_by_role("status")).to_contain_text("Got it!")
    expect(card.get_by_role("img", name="Challenge question")).to_be_hidden()
    assert redis_client.get(shard.stock_key(sale.id)) == b"4"
