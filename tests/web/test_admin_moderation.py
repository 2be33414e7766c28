"""The moderation queue in a browser: an operator opens a report, reads the reported
note's excerpt and author, hides it with the page's button (the note's API read then
404s) and restores it."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.factories import BlogFactory, UserFactory
from tests.helpers import client_for
from tests.web.conftest import admin_log_in, screenshot

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_an_operator_hides_and_restores_a_reported_note(
    page: Page, expected_http: set[int]
) -> None:
    expected_http.add(404)  # Django's admin names no icon: the browser asks for /favicon.ico
    author = UserFactory(nick_name="刷单小号")
    blog = BlogFactory(user=author, title="全场一折", content="加微信领优惠券，手慢无！")
    reporter = UserFactory(nick_name="热心食客")
    client_for(reporter).post(
        "/api/reports", {"kind": "blog", "id": blog.id, "reason": "spam"}, format="json"
    )
    page.set_viewport_size({"width": 1280, "height": 800})
    admin_log_in(page)

    page.goto("/admin/blogs/report/")
    row = page.locator("#result_list tbody tr").first
    expect(row).to_contain_text("全场一折 · 加微信领优惠券")
    expect(row).to_contain_text("刷单小号")
    row.locator("th a").click()

    expect(page.locator(".field-excerpt")).to_contain_text("全场一折 · 加微信领优惠券，手慢无！")
    expect(page.locator(".field-author")).to_contain_text("刷单小号")
    expect(page.locator(".field-reporter")).to_contain_text("热心食客")
    expect(page.locator('input[name="_save"]')).to_have_count(0)
    site = page.locator(".field-target").get_by_role("link").nth(1)
    expect(site).to_have_attribute("href", f"/#/blogs/{blog.id}")
    assert page.request.get(f"/api/blogs/{blog.id}").status == 200

    expect(page.locator(".field-status")).to_contain_text("待处理")
    page.locator('button[name="hide"]').click()

    expect(page.locator(".messagelist")).to_be_visible()
    expect(page.locator(".field-status")).to_contain_text("已隐藏内容")
    expect(page.locator(".field-target")).to_contain_text("(隐藏)")
    assert page.request.get(f"/api/blogs/{blog.id}").status == 404
    screenshot(page, "admin-report-hidden")

    page.locator('button[name="restore"]').click()

    expect(page.locator(".messagelist")).to_be_visible()
    expect(page.locator(".field-target")).not_to_contain_text("(隐藏)")
    expect(page.locator('button[name="hide"]')).to_be_visible()
    assert page.request.get(f"/api/blogs/{blog.id}").status == 200
