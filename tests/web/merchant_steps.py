"""Steps the merchant area's browser tests share: an operator in the admin, a picture to
upload, a time typed into a `datetime-local` input, one o'clock in the morning."""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, time

from django.utils import timezone
from PIL import Image
from playwright.sync_api import Browser, FilePayload, Page, expect

from tests.factories import UserFactory
from tests.helpers import FakeClock
from tests.web.conftest import PHONE
from toolkit import clock

OPERATOR_PASSWORD = "right-password-123"


def png(colour: tuple[int, int, int] = (30, 60, 200)) -> FilePayload:
    out = io.BytesIO()
    Image.new("RGB", (320, 240), colour).save(out, format="PNG")
    return {"name": "licence.png", "mimeType": "image/png", "buffer": out.getvalue()}


def local_input(moment: datetime) -> str:
    """`moment` as a `datetime-local` input takes it: the server's wall clock."""
    return timezone.localtime(moment).strftime("%Y-%m-%dT%H:%M")


@contextmanager
def one_in_the_morning() -> Iterator[datetime]:
    """The project clock (the live server runs in this process) at 01:00 local time today."""
    moment = timezone.make_aware(datetime.combine(timezone.localdate(), time(1, 0)))
    clock.set_source(FakeClock(moment.timestamp()))
    try:
        yield moment
    finally:
        clock.set_source(None)


@contextmanager
def operator_in_admin(browser: Browser, base_url: str) -> Iterator[Page]:
    """An operator (a superuser) logged into the admin in a browser of their own, in English."""
    operator = UserFactory(is_staff=True, is_superuser=True)
    operator.set_password(OPERATOR_PASSWORD)
    operator.save()
    context = browser.new_context(viewport=PHONE, base_url=base_url, locale="en-US")
    try:
        page = context.new_page()
        page.set_default_timeout(10_000)
        page.goto("/admin/login/?next=/admin/")
        page.locator("#id_username").fill(operator.username)
        page.locator("#id_password").fill(OPERATOR_PASSWORD)
        page.locator("input[type=submit]").click()
        expect(page.locator("#user-tools")).to_be_visible()
        yield page
    finally:
        context.close()


def admin_decides(admin: Page, path: str, button: str, said: str) -> None:
    """Open a request's page in the admin, press its decision, and see it done."""
    admin.goto(path)
    admin.get_by_role("button", name=button).click()
    expect(admin.locator(".messagelist .success")).to_contain_text(said)
