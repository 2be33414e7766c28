"""Reading a shop's reviews in a real browser: the shop's taste, environment and service
averages, the reviews filtered to those with photos (and by stars), one marked helpful
(its count goes up, its button shows the vote, and both survive a reload), then the
most helpful first; a review marked helpful on its own page; and a review written with
sub-scores. In English: these words are
new and join the Chinese catalogue with the next translation pass."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from blogs import services
from blogs.models import Blog
from pictures.demo_pictures import demo_picture
from tests.factories import ShopFactory, UserFactory
from tests.web.conftest import log_in, screenshot

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def browser_locale() -> str:
    return "en-US"


def _open(page: Page, url: str) -> None:
    """Go to a page of the client and let it settle: a button found while the page still
    paints may be replaced under the click."""
    page.goto(url)
    page.wait_for_load_state("networkidle")


def _review(shop_id: int, title: str, rating: int, *, photos: int = 0, **scores: int) -> Blog:
    images = [demo_picture(f"review-{title}-{n}", size=(160, 120)) for n in range(photos)]
    data = {"title": title, "content": f"{title}.", "shop_id": shop_id, "rating": rating}
    return services.blog_create(user_id=UserFactory().id, data={**data, "images": images, **scores})


def test_filter_to_photos_mark_one_helpful_and_sort_by_most_helpful(page: Page) -> None:
    shop = ShopFactory(name="Old Zhang Noodles")
    _review(shop.id, "Crispy dumplings", 5, photos=1, taste=5, service=4)
    _review(shop.id, "Long queue", 3, taste=4)
    plain = _review(shop.id, "Just fine", 4)  # the newest, no photo
    log_in(page, "13900000071", language="en")

    _open(page, f"/#/shops/{shop.id}")
    reviews = page.get_by_role("region", name="Reviews")
    aspects = reviews.get_by_role("definition")
    expect(reviews.get_by_label("Scores by aspect")).to_contain_text("Taste")
    expect(aspects.filter(has_text="4.5 (2 ratings)")).to_be_visible()  # taste: 5 and 4
    expect(aspects.filter(has_text="4.0 (1 rating)")).to_be_visible()  # service
    cards = reviews.locator("article")
    expect(cards).to_have_count(3)
    expect(cards.first).to_contain_text("Just fine")

    reviews.get_by_role("button", name="With photos").click()
    expect(cards).to_have_count(1)
    expect(cards.first).to_contain_text("Crispy dumplings")
    expect(cards.first).to_contain_text("Taste 5 · Service 4")
    expect(reviews.get_by_role("button", name="With photos")).to_have_attribute(
        "aria-pressed", "true"
    )

    helpful = cards.first.get_by_role("button", name="Helpful (0)")
    helpful.click()
    voted = cards.first.get_by_role("button", name="Helpful (1)")
    expect(voted).to_have_attribute("aria-pressed", "true")
    screenshot(page, "review-helpful")
    assert Blog.objects.get(title="Crispy dumplings").helpful == 1

    reviews.get_by_role("button", name="With photos").click()  # all of them again
    expect(cards).to_have_count(3)
    reviews.get_by_role("button", name="Most helpful").click()
    expect(cards.first).to_contain_text("Crispy dumplings")
    expect(cards.nth(1)).to_contain_text("Just fine")  # no votes: newest first
    reviews.get_by_role("button", name="3 stars").click()
    expect(cards).to_have_count(1)
    expect(cards.first).to_contain_text("Long queue")

    page.reload()  # the vote and its count come back from the API
    page.wait_for_load_state("networkidle")
    reviews = page.get_by_role("region", name="Reviews")
    card = reviews.locator("article", has_text="Crispy dumplings")
    expect(card.get_by_role("button", name="Helpful (1)")).to_have_attribute("aria-pressed", "true")
    expect(
        reviews.locator("article", has_text=plain.title).get_by_role("button", name="Helpful (0)")
    ).to_have_attribute("aria-pressed", "false")


def test_mark_a_review_helpful_on_its_own_page(page: Page) -> None:
    shop = ShopFactory(name="Old Zhang Noodles")
    review = _review(shop.id, "Crispy dumplings", 5, taste=5)
    log_in(page, "13900000073", language="en")

    _open(page, f"/#/blogs/{review.id}")
    expect(page.get_by_role("heading", name="Crispy dumplings")).to_be_visible()
    page.get_by_role("button", name="Helpful (0)").click()
    voted = page.get_by_role("button", name="Helpful (1)")
    expect(voted).to_have_attribute("aria-pressed", "true")
    assert Blog.objects.get(id=review.id).helpful == 1

    page.reload()  # the count and the reader's vote come back from the note's detail
    page.wait_for_load_state("networkidle")
    voted = page.get_by_role("button", name="Helpful (1)")
    expect(voted).to_have_attribute("aria-pressed", "true")
    voted.click()  # taken back
    expect(page.get_by_role("button", name="Helpful (0)")).to_have_attribute(
        "aria-pressed", "false"
    )
    assert Blog.objects.get(id=review.id).helpful == 0


def test_write_a_review_with_taste_environment_and_service(page: Page) -> None:
    shop = ShopFactory(name="Old Zhang Noodles")
    log_in(page, "13900000072", language="en")

    _open(page, f"/#/write?shop={shop.id}")
    page.get_by_label("Title").fill("Rich broth")
    page.get_by_label("What was it like?").fill("Generous beef, quick service.")
    page.get_by_label("4 stars").check()
    page.get_by_label("Taste").select_option("5")
    page.get_by_label("Service").select_option("3")
    page.get_by_role("button", name="Publish").click()

    expect(page.get_by_role("heading", name="Rich broth")).to_be_visible()
    expect(page.get_by_text("Taste 5 · Service 3")).to_be_visible()
    # The author's own review shows its count, with no vote to cast (the API refuses it).
    expect(page.get_by_text("0 found this helpful")).to_be_visible()
    expect(page.get_by_role("button", name="Helpful (0)")).to_have_count(0)
    review = Blog.objects.get()
    assert (review.rating, review.taste, review.environment, review.service) == (4, 5, None, 3)
    _open(page, f"/#/shops/{shop.id}")
    expect(page.get_by_label("Scores by aspect")).to_contain_text("5.0 (1 rating)")
