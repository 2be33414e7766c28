"""The merchant area in a real browser: a user claims a shop from its page; an owner keeps
the shop's hours (an overnight range, a holiday), price and phone, sees the server's field
errors next to the form, and sends a new name for approval; an owner drafts and submits a
flash sale, an operator sends it back with a reason, the owner edits and submits it
again, an operator publishes it in the admin, and the owner stops it. In
English: these words join the Chinese catalogue with the next translation pass."""

from __future__ import annotations

from datetime import timedelta

import pytest
from playwright.sync_api import Browser, Page, expect

from merchants.models import OfferDraft, ShopChange, ShopClaim
from shops import hours
from shops.models import Shop, ShopStaff
from tests.factories import ShopFactory, UserFactory
from tests.web.conftest import log_in, screenshot
from tests.web.merchant_steps import (
    admin_decides,
    local_input,
    one_in_the_morning,
    operator_in_admin,
    png,
)
from toolkit import clock
from vouchers.models import Voucher

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

OWNER = ShopStaff.Role.OWNER


@pytest.fixture
def browser_locale() -> str:
    return "en-US"


@pytest.fixture(autouse=True)
def _media(settings, tmp_path) -> None:
    settings.MEDIA_ROOT = tmp_path / "media"


def _owner_of(shop, phone: str):
    owner = UserFactory(phone=phone)
    ShopStaff.objects.create(shop=shop, user=owner, role=OWNER)
    return owner


def _open(page: Page, url: str) -> None:
    """Go to a page of the client and let it settle (its sections load after the page)."""
    page.goto(url)
    page.wait_for_load_state("networkidle")


def test_a_user_claims_a_shop_from_its_page(page: Page, expected_http: set[int]) -> None:
    expected_http.add(409)  # the claim of a shop that found an owner meanwhile
    shop = ShopFactory(name="Old Zhang Noodles")
    taken = ShopFactory(name="Taken Tea House")
    _owner_of(taken, "13900000180")
    later = ShopFactory(name="Little Li BBQ")
    log_in(page, "13900000181", language="en")

    _open(page, f"/#/shops/{taken.id}")  # someone owns it: nothing to claim
    expect(page.get_by_role("heading", name="Taken Tea House")).to_be_visible()
    expect(page.get_by_role("button", name="Claim this shop")).to_have_count(0)

    _open(page, f"/#/shops/{shop.id}")
    claim = page.get_by_role("region", name="Run this shop?")
    claim.get_by_role("button", name="Claim this shop").click()
    claim.get_by_label("How can an operator check that you run this shop?").fill(
        "I am the manager; the licence is in my name."
    )
    claim.get_by_label("A picture (optional)").set_input_files(png())
    expect(claim.get_by_text("uploaded", exact=True)).to_be_visible()
    claim.get_by_role("button", name="Send the claim").click()
    expect(claim.locator('[data-claim="pending"]')).to_contain_text(
        "waiting for an operator's decision"
    )
    screenshot(page, "merchant-claim-sent")
    sent = ShopClaim.objects.get()
    assert (sent.shop_id, sent.status) == (shop.id, "pending")
    assert sent.evidence == "I am the manager; the licence is in my name."
    assert "/media/uploads/" in sent.picture

    _open(page, f"/#/shops/{shop.id}")  # read again: still waiting, no second claim
    expect(page.get_by_role("region", name="Run this shop?")).to_contain_text("waiting for")
    expect(page.get_by_role("button", name="Claim this shop")).to_have_count(0)

    claim.get_by_role("link", name="My shops").click()  # the merchant area lists it
    expect(page.get_by_role("heading", name="My shops")).to_be_visible()
    expect(page.get_by_text("You do not run a shop on Dianping yet.")).to_be_visible()
    listed = page.locator(f'[data-claim="{sent.id}"]')
    expect(listed).to_contain_text("Old Zhang Noodles")
    expect(listed).to_contain_text("Waiting for an operator")

    # A shop that finds an owner while the form is open: the claim is refused, and said so.
    _open(page, f"/#/shops/{later.id}")
    claim = page.get_by_role("region", name="Run this shop?")
    claim.get_by_role("button", name="Claim this shop").click()
    claim.get_by_label("How can an operator check that you run this shop?").fill("Mine.")
    _owner_of(later, "13900000182")
    claim.get_by_role("button", name="Send the claim").click()
    expect(claim.locator('[data-claim="refused"]')).to_have_text("The shop already has an owner.")
    expect(claim.get_by_role("button", name="Claim this shop")).to_have_count(0)
    assert ShopClaim.objects.count() == 1


def test_an_owner_keeps_the_hours_and_the_shop_is_open_across_midnight(
    page: Page, expected_http: set[int]
) -> None:
    expected_http.add(400)  # the server's field errors, on purpose
    shop = ShopFactory(name="Night Owl", avg_price=60)
    owner = _owner_of(shop, "13900000183")
    holiday = (clock.now() + timedelta(days=40)).date().isoformat()
    with one_in_the_morning():
        log_in(page, str(owner.phone), language="en")
        page.get_by_role("link", name="My shops").click()  # the header shows it to staff
        page.get_by_role("link", name="Profile & hours").click()

        form = page.get_by_role("form", name="Opening hours, price and phone")
        expect(form).to_contain_text("No opening hours yet")
        form.get_by_label("Average spend per person (¥)").fill("70")
        form.get_by_role("button", name="Save hours, price and phone").click()
        expect(form.get_by_role("status")).to_have_text("Saved.")
        shop.refresh_from_db()  # the price alone: no hours (all days closed) made up
        assert (shop.avg_price, shop.hours) == (70, None)

        monday = form.locator('[data-day="mon"]')
        expect(monday).to_contain_text("Closed all day")
        monday.get_by_role("button", name="Add a range on Monday").click()
        monday.get_by_role("button", name="Add a range on Monday").click()
        form.get_by_label("Monday, range 2: opens").fill("12:00")
        form.get_by_label("Monday, range 2: closes").fill("16:00")  # over 10:00-22:00
        form.get_by_label("The shop's phone").fill("call us")
        form.get_by_role("button", name="Save hours, price and phone").click()
        expect(form.get_by_role("status")).to_have_text("Please correct the marked fields.")
        expect(form.locator('[data-error-for="hours"]')).to_have_text(
            "mon: opening ranges overlap."
        )
        expect(form.locator('[data-error-for="phone"]')).to_contain_text(
            "digits, spaces and dashes"
        )
        expect(form.get_by_label("The shop's phone")).to_have_attribute("aria-invalid", "true")
        screenshot(page, "merchant-hours-errors")
        assert Shop.objects.get(pk=shop.id).hours is None  # nothing applied

        monday.get_by_role("button", name="Remove range 2 of Monday").click()
        form.get_by_label("Monday, range 1: opens").fill("18:00")
        form.get_by_label("Monday, range 1: closes").fill("02:00")
        expect(monday.get_by_text("next day")).to_be_visible()
        form.get_by_role("button", name="Copy Monday to every day").click()
        expect(
            form.locator('[data-day="sun"]').get_by_label("Sunday, range 1: closes")
        ).to_have_value("02:00")
        form.get_by_label("Closed all day on (holidays)").fill(holiday)
        form.get_by_role("button", name="Add the date").click()
        form.get_by_label("Average spend per person (¥)").fill("88")
        form.get_by_label("The shop's phone").fill("021-6234 5678")
        form.get_by_role("button", name="Save hours, price and phone").click()
        expect(form.get_by_role("status")).to_have_text("Saved.")
        expect(form.locator(".field-error:not(:empty)")).to_have_count(0)
        shop.refresh_from_db()
        assert shop.hours == {
            "weekly": {day: [["18:00", "02:00"]] for day in hours.DAYS},
            "closed_dates": [holiday],
        }
        assert (shop.avg_price, shop.phone) == (88, "021-6234 5678")

        # A new name waits for an operator; the shop keeps its own meanwhile.
        reviewed = page.get_by_role("form", name="Name, address and position")
        reviewed.get_by_label("Name", exact=True).fill("Night Owl Bar")
        reviewed.get_by_role("button", name="Send for approval").click()
        expect(reviewed.get_by_role("status")).to_have_text("Sent for approval.")
        expect(reviewed.locator('[data-change="pending"]')).to_contain_text("Night Owl Bar")
        assert ShopChange.objects.get(pending=True).fields == {"name": "Night Owl Bar"}
        page.set_viewport_size({"width": 1280, "height": 900})
        screenshot(page, "merchant-hours-desktop")

        page.get_by_role("link", name="My shops").click()
        page.goto(f"/#/shops/{shop.id}")  # 01:00: Sunday-or-any night's 18:00-02:00 is on
        expect(page.get_by_role("heading", name="Night Owl", exact=True)).to_be_visible()
        expect(page.locator("#app .open-now")).to_have_text(["Open now"])
        expect(page.get_by_text("open 18:00-02:00")).to_be_visible()
        expect(page.get_by_role("region", name="Run this shop?")).to_contain_text(
            "You own this shop"
        )


def test_an_owner_drafts_a_flash_sale_an_operator_publishes_it_and_the_owner_stops_it(
    page: Page, browser: Browser, live_server, expected_http: set[int]
) -> None:
    expected_http.update({400, 404})  # a field error on purpose; the admin asks for a favicon
    shop = ShopFactory(name="Old Zhang Noodles")
    owner = _owner_of(shop, "13900000184")
    begin = clock.now() + timedelta(hours=1)
    end = begin + timedelta(hours=2)
    log_in(page, str(owner.phone), language="en")
    _open(page, f"/#/merchant?shop={shop.id}&tab=offers")
    expect(page.get_by_text("No offers yet")).to_be_visible()

    page.get_by_text("Draft a new offer").click()
    form = page.get_by_role("form", name="New offer")
    expect(form.get_by_label("Kind")).to_have_value("seckill")
    form.get_by_label("Title", exact=True).fill("¥100 for ¥59")
    form.get_by_label("Price (¥)").fill("59")
    form.get_by_label("Face value (¥)").fill("100")
    form.get_by_label("Sale starts").fill(local_input(begin))
    form.get_by_label("Sale ends").fill(local_input(end))
    form.get_by_label("Stock (units)").evaluate("input => { input.required = false; }")
    form.get_by_role("button", name="Save the draft").click()  # no stock: the server says
    expect(form.locator('[data-error-for="stock"]')).to_have_text("A flash sale needs stock.")
    form.get_by_label("Stock (units)").fill("50")
    form.get_by_role("button", name="Save the draft").click()

    card = page.locator("article.offer")
    expect(card).to_have_count(1)
    expect(card.get_by_role("status")).to_have_text("Draft saved: submit it when it is ready.")
    expect(card.locator(".state")).to_have_text("Draft")
    expect(card).to_contain_text("Stock 50")
    card.get_by_role("button", name="Submit for review").click()
    expect(card.locator(".state")).to_have_text("Waiting for an operator")
    expect(card.get_by_role("button", name="Edit")).to_have_count(0)
    offer = OfferDraft.objects.get()
    assert (offer.state, offer.fields["stock"], offer.fields["pay_value"]) == (
        "submitted",
        50,
        5900,
    )

    with operator_in_admin(browser, live_server.url) as admin:
        admin.goto(f"/admin/merchants/offerdraft/{offer.id}/change/")
        admin.get_by_role("link", name="Send back").click()
        admin.get_by_label("Reason").fill("Make it 100 units: 50 sell out in seconds.")
        admin.get_by_role("button", name="Send back").click()
        expect(admin.locator(".messagelist .success")).to_contain_text("Sent back.")

        page.reload()  # the owner reads why, edits and submits again
        card = page.locator("article.offer")
        expect(card.locator(".state")).to_have_text("Sent back")
        expect(card.locator("[data-reason]")).to_have_text(
            "Sent back: Make it 100 units: 50 sell out in seconds."
        )
        card.get_by_role("button", name="Edit").click()
        card.get_by_label("Stock (units)").fill("100")
        card.get_by_role("button", name="Save changes").click()
        expect(card.get_by_role("status")).to_have_text("Changes saved.")
        expect(card).to_contain_text("Stock 100")
        card.get_by_role("button", name="Submit for review").click()
        expect(card.locator(".state")).to_have_text("Waiting for an operator")
        screenshot(page, "merchant-offer-submitted")

        admin_decides(
            admin, f"/admin/merchants/offerdraft/{offer.id}/change/", "Publish", "Published as"
        )
    voucher = Voucher.objects.get()
    assert (voucher.title, voucher.type, voucher.stock) == ("¥100 for ¥59", "seckill", 100)
    assert voucher.begin_time == begin.replace(second=0, microsecond=0)

    page.reload()  # the page the owner left open, read again
    card = page.locator("article.offer")
    expect(card.locator(".state")).to_have_text("Published")
    expect(card).to_contain_text("100 left")  # the sale's live stock
    page.once("dialog", lambda dialog: dialog.accept())
    card.get_by_role("button", name="Stop the sale").click()
    expect(card.get_by_role("status")).to_have_text("The sale was stopped.")
    expect(card.locator(".state")).to_have_text("Stopped")
    voucher.refresh_from_db()
    assert voucher.status == Voucher.Status.VOID
