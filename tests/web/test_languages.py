"""The client's two languages in a real browser: Simplified Chinese by default, English for
a browser that asks for it, and the switch in the header, which keeps the reader's page.
The other browser tests run in Chinese; these prove the English side works end to end."""

from __future__ import annotations

import io

import pytest
from PIL import Image
from playwright.sync_api import Page, expect

from accounts.sms import locmem
from blogs.models import Blog
from tests.factories import NormalVoucherFactory, ShopFactory
from tests.web.conftest import log_in

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _media(settings, tmp_path) -> None:
    settings.MEDIA_ROOT = tmp_path / "media"


def _html_lang(page: Page) -> str:
    return page.evaluate("document.documentElement.lang")


def test_chinese_by_default_and_the_switch_keeps_the_page(page: Page) -> None:
    shop = ShopFactory(name="老张面馆")
    NormalVoucherFactory(shop=shop, title="满100减20", pay_value=0, actual_value=2000)
    page.goto(f"/#/shops/{shop.id}")

    expect(page.get_by_role("heading", name="优惠券")).to_be_visible()
    expect(page.get_by_role("button", name="领取")).to_be_visible()
    expect(page.get_by_role("link", name="首页")).to_be_visible()  # the server's template too
    assert _html_lang(page) == "zh-hans"
    expect(page.get_by_role("button", name="简体中文")).to_be_disabled()  # the current one

    page.get_by_role("button", name="English").click()

    expect(page.get_by_role("heading", name="Vouchers")).to_be_visible()
    expect(page.get_by_role("button", name="Get")).to_be_visible()
    expect(page.get_by_role("link", name="Home", exact=True)).to_be_visible()
    assert page.url.endswith(f"/#/shops/{shop.id}")  # still on the shop's page
    assert _html_lang(page) == "en"

    page.reload()  # the choice is remembered (a cookie), not just for one page
    expect(page.get_by_role("heading", name="Vouchers")).to_be_visible()

    page.get_by_role("button", name="简体中文").click()
    expect(page.get_by_role("heading", name="优惠券")).to_be_visible()
    assert page.url.endswith(f"/#/shops/{shop.id}")


@pytest.mark.parametrize("browser_locale", ["en-US"])
def test_an_english_browser_posts_a_note_with_a_photo_in_english(
    page: Page, expected_http: set[int]
) -> None:
    """Accept-Language: en-US alone makes the whole client English, the server's error
    details included; a note with a photo goes through as in Chinese."""
    expected_http.add(400)  # the mistyped phone number
    page.goto("/#/login")
    assert _html_lang(page) == "en"
    page.get_by_label("Phone number").fill("12345")
    page.get_by_role("button", name="Send code").click()
    expect(page.get_by_role("status")).to_contain_text("mainland mobile number")  # the API's
    assert locmem.outbox == []  # refused: no text message went out

    log_in(page, "13900000041", language="en")
    page.goto("/#/write")
    page.get_by_label("Title").fill("Noodles at noon")
    page.get_by_label("What was it like?").fill("Hand-pulled, and quick.")
    picture = io.BytesIO()
    Image.new("RGB", (320, 240), (200, 60, 30)).save(picture, format="PNG")
    page.get_by_label("Photos (up to 9)").set_input_files(
        {"name": "noodles.png", "mimeType": "image/png", "buffer": picture.getvalue()}
    )
    expect(page.get_by_text("uploaded")).to_be_visible()
    page.get_by_role("button", name="Publish").click()

    expect(page.get_by_role("heading", name="Noodles at noon")).to_be_visible()
    expect(page.get_by_role("img", name="Photo 1 of Noodles at noon")).to_be_visible()
    expect(page.get_by_role("button", name="♡ Like")).to_be_visible()
    assert len(Blog.objects.get().images) == 1
