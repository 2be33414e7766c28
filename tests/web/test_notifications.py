"""The bell in a real browser: B likes A's note; A sees the badge and the notification,
follows it to the note, and marks everything read. With the notification stream's process
running (scripts/stream.sh), the bell and the open inbox change as it happens, with no
reload and no navigation."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.factories import BlogFactory, UserFactory
from tests.helpers import client_for
from tests.servers import production_env, start_stream
from tests.web.conftest import log_in, screenshot
from tests.workers import current_database_url

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_a_like_reaches_the_author_s_bell_and_inbox(page: Page) -> None:
    author = UserFactory(phone="13900000021", nick_name="小杨")
    note = BlogFactory(user=author, title="生煎包探店")
    log_in(page, "13900000022")  # B, a new account
    page.goto(f"/#/blogs/{note.id}")
    page.get_by_role("button", name="点赞").click()
    expect(page.get_by_role("button", name="♥ 已赞")).to_be_visible()
    page.goto("/#/logout")
    expect(page.locator("#account-link")).to_contain_text("登录")
    expect(page.locator("#bell")).to_be_hidden()

    log_in(page, "13900000021")  # A

    expect(page.locator("#bell-count")).to_have_text("1")
    page.locator("#bell").click()
    item = page.locator(".notification", has_text="生煎包探店")
    expect(item).to_contain_text("赞了你的笔记")
    expect(item).to_have_class("card notification unread")
    screenshot(page, "notifications")
    page.get_by_role("button", name="全部标为已读").click()
    expect(page.locator("#bell-count")).to_be_hidden()
    expect(item).to_have_class("card notification")
    item.get_by_role("link").click()
    expect(page.get_by_role("heading", name="生煎包探店")).to_be_visible()


def test_a_note_s_comments_show_as_one_item_with_their_count(page: Page) -> None:
    from blogs import services as blogs

    author = UserFactory(phone="13900000023", nick_name="小杨")
    note = BlogFactory(user=author, title="小笼包探店")
    first, second = UserFactory(nick_name="阿明"), UserFactory(nick_name="阿红")
    for who, words in [(first, "好吃吗"), (second, "排队久吗"), (first, "下周去")]:
        blogs.comment_create(blog_id=note.id, user_id=who.id, content=words)

    log_in(page, "13900000023")

    expect(page.locator("#bell-count")).to_have_text("1")
    page.locator("#bell").click()
    items = page.locator(".notification")
    expect(items).to_have_count(1)
    expect(items.first.get_by_role("link")).to_have_text(
        "“小笼包探店”有 3 条新评论，最新来自 阿明：下周去"
    )
    expect(items.first).to_have_class("card notification unread")


@pytest.mark.parametrize("browser_locale", ["en-US"])  # new words: English until translated
def test_a_merchant_reads_the_decisions_and_the_sales_of_their_shop(page: Page) -> None:
    from merchants import services as merchants
    from notifications.models import Kind
    from notifications.services import notification_add
    from shops.models import ShopStaff
    from tests.factories import ShopFactory, VoucherFactory

    shop = ShopFactory(name="Old Zhang Noodles")
    owner = UserFactory(phone="13900000024")
    ShopStaff.objects.create(shop=shop, user=owner, role=ShopStaff.Role.OWNER)
    other = ShopFactory(name="Corner Cafe")
    claim = merchants.claim_submit(user_id=owner.id, shop_id=other.id, evidence="mine")
    merchants.claim_reject(claim_id=claim.id, reason="The licence names someone else.")
    change = merchants.shop_profile_update(
        owner_id=owner.id, shop_id=shop.id, values={"address": "9 Far Road"}
    )[1]
    assert change is not None
    merchants.shop_change_reject(change_id=change.id, reason="The pin is a street away.")
    sale = VoucherFactory(shop=shop, title="Noodles for 1 yuan")
    notification_add(
        recipient_id=owner.id,
        kind=Kind.SALE_SOLD_OUT,
        key="so",
        shop_id=shop.id,
        voucher_id=sale.id,
    )

    log_in(page, "13900000024", language="en")
    page.locator("#bell").click()

    items = page.locator(".notification")
    expect(items).to_have_count(3)
    expect(items.nth(0).get_by_role("link")).to_have_text(
        "The flash sale “Noodles for 1 yuan” of Old Zhang Noodles sold out"
    )
    expect(items.nth(1).get_by_role("link")).to_have_text(
        "The new name, address or position of Old Zhang Noodles was turned down"
    )
    expect(items.nth(1).locator(".reason")).to_have_text("Reason: The pin is a street away.")
    expect(items.nth(2).get_by_role("link")).to_have_text(
        "Your claim of Corner Cafe was turned down"
    )
    expect(items.nth(2).locator(".reason")).to_have_text("Reason: The licence names someone else.")
    expect(items.nth(0).locator(".reason")).to_have_count(0)
    screenshot(page, "notifications-merchant")
    # A claim turned down leads to the shop's page; the shop's own news to its dashboard.
    expect(items.nth(2).get_by_role("link")).to_have_attribute("href", f"#/shops/{other.id}")
    items.nth(1).get_by_role("link").click()
    expect(page.get_by_role("heading", name="My shops")).to_be_visible()
    expect(page.get_by_label("Shop")).to_have_value(str(shop.id))


@pytest.fixture
def stream_server(tmp_path: Path, settings) -> Iterator[int]:
    """The stream's own process on the test database and Redis, named to the page as
    `make run` names it: this host, its own port."""
    env = production_env(current_database_url(), tmp_path)
    process, port = start_stream(env, tmp_path / "stream.log")
    settings.NOTIFICATIONS_STREAM_URL = f":{port}/api/notifications/stream"
    yield port
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=60)


def test_the_bell_and_the_open_inbox_change_as_a_like_comes_in(stream_server, page: Page) -> None:
    # The stream's server goes after the page (fixtures end in reverse): cut off first, the
    # page would log the broken response.
    author = UserFactory(phone="13900000024", nick_name="小杨")
    note = BlogFactory(user=author, title="锅贴探店")
    liker = UserFactory(nick_name="阿明")
    log_in(page, "13900000024")
    page.locator("#bell").click()
    expect(page.get_by_text("暂无通知。")).to_be_visible()
    expect(page.locator("#bell-count")).to_be_hidden()
    page.evaluate("window.sameDocument = true")  # gone if the page were loaded again

    assert client_for(liker).post(f"/api/blogs/{note.id}/like").status_code == 200

    expect(page.locator("#bell-count")).to_have_text("1")
    item = page.locator(".notification", has_text="锅贴探店")
    expect(item).to_contain_text("阿明 赞了你的笔记")
    expect(item).to_have_class("card notification unread")
    assert page.evaluate("window.sameDocument") is True
    assert page.evaluate("location.hash") == "#/notifications"
