""" "Guess you like" in a real browser: a reader saves a noodle shop and rates another, and
the home page's suggestions follow their taste (the noodle shops other noodle lovers
chose come first, before the busier cafés) and never show a shop they saved or rated.
In English: the Chinese catalogue gets these strings after this test was written."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User
from favourites.services import favourite_save
from tests.factories import ShopFactory, ShopTypeFactory, UserFactory
from tests.helpers import client_for
from tests.web.conftest import log_in

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def browser_locale() -> str:
    return "en-US"


def test_suggestions_follow_what_the_reader_saved_and_rated(page: Page) -> None:
    noodles, cafes = ShopTypeFactory(name="Noodles"), ShopTypeFactory(name="Cafés")
    bowls = [ShopFactory(type=noodles, name=f"Noodle bar {n}", comments=5) for n in range(4)]
    cups = [ShopFactory(type=cafes, name=f"Café {n}", comments=90) for n in range(4)]
    for group in (bowls, cups):  # three users of each taste, each saving their four
        for user in UserFactory.create_batch(3):
            for shop in group:
                favourite_save(user_id=user.id, kind="shop", object_id=shop.id)

    log_in(page, "13900000401", language="en")
    me = User.objects.get(phone="13900000401")
    page.goto("/#/")
    suggestions = page.locator("#guess-you-like article")
    # No history yet: the popular shops (the cafés are the busiest).
    expect(suggestions.first).to_contain_text("Café")

    page.goto(f"/#/shops/{bowls[0].id}")
    expect(page.get_by_role("heading", name="Noodle bar 0", level=1)).to_be_visible()
    page.get_by_role("button", name="☆ Save").click()
    expect(page.get_by_role("button", name="★ Saved")).to_have_attribute("aria-pressed", "true")
    review = {"title": "Good broth", "content": "Rich.", "shop_id": bowls[1].id, "rating": 5}
    assert client_for(me).post("/api/blogs", review, format="json").status_code == 201

    page.goto("/#/")
    expect(page.get_by_role("heading", name="Guess you like")).to_be_visible()
    expect(suggestions.nth(0)).to_contain_text("Noodle bar")
    expect(suggestions.nth(1)).to_contain_text("Noodle bar")
    expect(suggestions.nth(2)).to_contain_text("Café")
    names = suggestions.locator("h3").all_inner_texts()
    assert sorted(names[:2]) == ["Noodle bar 2", "Noodle bar 3"]
    assert "Noodle bar 0" not in names  # saved
    assert "Noodle bar 1" not in names  # rated
