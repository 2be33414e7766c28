"""A real Chromium (Debian's, driven by Playwright) against a live Django server with the
real Redis and test database. Screenshots land in var/screenshots/; the README's (of the
demo data) in docs/screenshots/ with UPDATE_SCREENSHOTS=1 (`make screenshots`)."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image
from playwright.sync_api import (
    Browser,
    ConsoleMessage,
    Page,
    ViewportSize,
    expect,
    sync_playwright,
)

from accounts.sms import locmem

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ROOT = Path(__file__).resolve().parent.parent.parent
# Every run takes the screenshots into var/screenshots/. The README's come from the demo
# data (tests/web/test_screenshots.py): `make screenshots` (UPDATE_SCREENSHOTS=1) writes
# those to docs/screenshots/; the other tests' never go there (their data is made up).
SCREENSHOTS = ROOT / "var" / "screenshots"
README_SCREENSHOTS = ROOT / "docs" / "screenshots"
PHONE: ViewportSize = {"width": 390, "height": 844}
# Chromium logs every non-2xx fetch as a console error. A test lists the statuses it
# provokes on purpose in `expected_http`; any other fails it.
_HTTP_ERROR = re.compile(r"Failed to load resource: .* status of (\d+)")


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not shutil.which(CHROMIUM):
        pytest.fail(f"{CHROMIUM} not found: `make test` installs Debian's chromium")
    # Playwright's sync API keeps an event loop in this thread while the browser lives;
    # the tests' ORM calls (and the database teardown) are still plain synchronous code,
    # so Django's async-context guard stands aside for this module only: the variable
    # must never reach another test (the deploy check refuses it).
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
            yield browser
            browser.close()
    finally:
        del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]


@pytest.fixture
def expected_http() -> set[int]:
    """HTTP error statuses this test provokes on purpose (a second grab's 409, say)."""
    return set()


@pytest.fixture
def browser_locale() -> str:
    """The browser's language (Accept-Language): Chinese, the client's default, unless a
    test overrides this fixture."""
    return "zh-CN"


@pytest.fixture
def page(
    browser: Browser, live_server, eager_tasks, expected_http, browser_locale
) -> Iterator[Page]:
    context = browser.new_context(viewport=PHONE, base_url=live_server.url, locale=browser_locale)
    page = context.new_page()
    page.set_default_timeout(10_000)
    expect.set_options(timeout=10_000)  # expect() has its own default (5 s)
    problems: list[str] = []

    def on_console(msg: ConsoleMessage) -> None:
        http = _HTTP_ERROR.search(msg.text)
        if msg.type == "error" and not (http and int(http.group(1)) in expected_http):
            problems.append(f"console: {msg.text}")

    page.on("console", on_console)
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    yield page
    context.close()
    assert problems == []


def screenshot(page: Page, name: str, *, readme: bool = False) -> None:
    folder = SCREENSHOTS
    if readme and os.environ.get("UPDATE_SCREENSHOTS"):
        folder = README_SCREENSHOTS
    elif readme:
        name = f"readme-{name}"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    # At the top, at once (a smooth scroll still under way draws the sticky header mid-page
    # over a blank band), and only as tall as the content (a short page left no empty third).
    height = page.evaluate(_TOP_AND_CONTENT_HEIGHT)
    width = page.viewport_size["width"] if page.viewport_size else PHONE["width"]
    page.screenshot(
        path=str(path), full_page=True, clip={"x": 0, "y": 0, "width": width, "height": height}
    )
    if readme:
        assert_mostly_drawn(path)


# Scrolls to the top without animation, then answers how far down the last visible element
# of the page ends (plus a margin), never past the document.
_TOP_AND_CONTENT_HEIGHT = """() => {
  document.documentElement.style.scrollBehavior = "auto";
  window.scrollTo(0, 0);
  const bottoms = [...document.body.querySelectorAll("body > *")]
    .filter((element) => element.getClientRects().length > 0)
    .map((element) => element.getBoundingClientRect().bottom + window.scrollY);
  const content = Math.ceil(Math.max(0, ...bottoms)) + 16;
  return Math.min(content, document.documentElement.scrollHeight);
}"""

BLANK_BAND_MAX = 0.2  # of the image's height: one empty stretch no taller than this
BLANK_ROWS_MAX = 0.5  # of its rows in all (a short form has much air between its fields)


def assert_mostly_drawn(path: Path) -> None:
    """A screenshot worth showing: no empty band a fifth of its height, and at most half
    of its rows of one colour (margins between cards are such rows; a page that failed to
    draw, or a picture with an empty third, has far more)."""
    with Image.open(path) as image:
        grey = image.convert("L")
        width, height = grey.size
        pixels = grey.load()
        assert pixels is not None
        blank = [len({pixels[x, y] for x in range(0, width, 3)}) == 1 for y in range(height)]
    longest = run = 0
    for row_is_blank in blank:
        run = run + 1 if row_is_blank else 0
        longest = max(longest, run)
    assert longest <= BLANK_BAND_MAX * height, f"{path.name}: an empty band of {longest} px"
    assert sum(blank) <= BLANK_ROWS_MAX * height, (
        f"{path.name}: {sum(blank)} of {height} rows empty"
    )


# The login page's words in each language the tests speak.
LOGIN_WORDS = {
    "zh": {
        "page": "登录",
        "phone": "手机号",
        "send": "发送验证码",
        "sent": "验证码已发送",
        "code": "验证码",
        "submit": "登录",
        "logged_in": "退出",
    },
    "en": {
        "page": "Log in",
        "phone": "Phone number",
        "send": "Send code",
        "sent": "Code sent",
        "code": "Code",
        "submit": "Log in",
        "logged_in": "Log out",
    },
}


def log_in(page: Page, phone: str, *, via: str = "/#/login", language: str = "zh") -> None:
    """Log in through the page, with the SMS code the test outbox received."""
    words = LOGIN_WORDS[language]
    page.goto(via)
    expect(page.get_by_role("heading", name=words["page"])).to_be_visible()
    page.get_by_label(words["phone"]).fill(phone)
    page.get_by_role("button", name=words["send"]).click()
    expect(page.get_by_role("status")).to_contain_text(words["sent"])
    sent = re.search(r"\b(\d{6})\b", locmem.outbox[-1][1])
    assert sent is not None
    code = sent.group(1)
    page.get_by_label(words["code"], exact=True).fill(code)
    page.get_by_role("button", name=words["submit"]).click()
    expect(page.locator("#account-link")).to_contain_text(words["logged_in"])


def admin_log_in(page: Page, username: str = "operator") -> None:
    """An operator (a superuser) signs in to the admin through its login form."""
    from tests.factories import UserFactory

    operator = UserFactory(username=username, is_staff=True, is_superuser=True)
    operator.set_password("right-password-123")
    operator.save()
    page.goto("/admin/login/?next=/admin/")
    page.locator("#id_username").fill(username)
    page.locator("#id_password").fill("right-password-123")
    page.locator("input[type=submit]").click()
    expect(page.locator("#user-tools")).to_be_visible()
