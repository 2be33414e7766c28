"""The social basics in a real browser: a user's followers list with follow buttons, the
profile form, deleting one's own comment, reporting a note and a comment, and the
cancelled tab of my vouchers."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User, UserInfo
from blogs import services as blogs
from blogs.models import Blog, BlogComment, Report
from follows import services as follows
from follows.models import Follow
from tests.factories import BlogFactory, NormalVoucherFactory, UserFactory
from tests.web.conftest import log_in, screenshot

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _me(phone: str) -> User:
    return User.objects.get(phone=phone)


def test_a_followers_list_with_the_viewer_s_follow_buttons(page: Page) -> None:
    star = UserFactory(nick_name="美食家小王")
    fans = [UserFactory(nick_name=name) for name in ("阿花", "老李", "小陈")]
    for fan in fans:
        follows.follow(user_id=fan.id, target_id=star.id)
    log_in(page, "13900000101")
    me = _me("13900000101")
    follows.follow(user_id=me.id, target_id=fans[1].id)

    page.goto(f"/#/users/{star.id}")
    page.get_by_role("link", name="3 粉丝").click()

    expect(page.get_by_role("heading", name="美食家小王 的粉丝")).to_be_visible()
    names = page.locator("ul.people li a")
    expect(names).to_have_text(["小陈", "老李", "阿花"])  # newest follow first
    rows = page.locator("ul.people li")
    expect(rows.nth(1).get_by_role("button")).to_have_text("已关注")
    rows.nth(0).get_by_role("button", name="关注").click()
    expect(rows.nth(0).get_by_role("button")).to_have_attribute("aria-pressed", "true")
    assert Follow.objects.filter(user=me, followed=fans[2]).exists()
    screenshot(page, "followers")

    page.goto(f"/#/users/{fans[2].id}/following")
    expect(page.get_by_role("heading", name="小陈 的关注")).to_be_visible()
    expect(page.locator("ul.people li a")).to_have_text(["美食家小王"])


def test_edit_one_s_profile(page: Page) -> None:
    log_in(page, "13900000102")
    me = _me("13900000102")
    page.goto(f"/#/users/{me.id}")

    page.get_by_text("编辑个人资料").click()
    page.locator("#profile-city").fill("杭州")  # the header's city chooser is "城市" too
    page.get_by_label("个人简介").fill("爱吃面，也爱拍照")
    page.get_by_label("性别").select_option("female")
    page.get_by_label("生日").fill("1992-05-17")
    page.get_by_role("button", name="保存资料").click()

    expect(page.get_by_text("资料已保存。")).to_be_visible()
    expect(page.locator("#about")).to_have_text("杭州 · 女 · 生于 1992-05-17 · 爱吃面，也爱拍照")
    info = UserInfo.objects.get(user=me)
    assert (info.city, info.introduce, info.gender, str(info.birthday)) == (
        "杭州",
        "爱吃面，也爱拍照",
        UserInfo.Gender.FEMALE,
        "1992-05-17",
    )
    screenshot(page, "profile-edit")
    page.reload()  # what the server keeps
    expect(page.locator("#about")).to_have_text("杭州 · 女 · 生于 1992-05-17 · 爱吃面，也爱拍照")


def test_delete_one_s_own_comment(page: Page) -> None:
    blog = BlogFactory(title="巷子里的馄饨")
    other = UserFactory(nick_name="路人甲")
    blogs.comment_create(blog_id=blog.id, user_id=other.id, content="同意")
    log_in(page, "13900000103")
    me = _me("13900000103")
    page.goto(f"/#/blogs/{blog.id}")
    page.get_by_label("写评论").fill("汤头很鲜")
    page.get_by_role("button", name="发送").click()
    expect(page.get_by_role("heading", name="评论（2）")).to_be_visible()
    mine = page.locator(".comment", has_text="汤头很鲜")
    theirs = page.locator(".comment", has_text="同意")
    expect(theirs.get_by_role("button", name="删除")).to_have_count(0)  # not mine

    page.once("dialog", lambda dialog: dialog.accept())
    mine.get_by_role("button", name="删除").click()

    expect(mine).to_have_count(0)
    expect(page.get_by_role("heading", name="评论（1）")).to_be_visible()
    assert not BlogComment.objects.filter(user=me).exists()
    assert Blog.objects.get(pk=blog.pk).comments == 1
    page.reload()
    expect(page.locator(".comment")).to_have_count(1)
    expect(page.locator(".comment")).to_contain_text("路人甲: 同意")


def test_report_a_note_and_a_comment(page: Page) -> None:
    blog = BlogFactory(title="可疑的探店")
    comment = BlogComment.objects.create(blog=blog, user=blog.user, content="加微信领券")
    log_in(page, "13900000104")
    page.goto(f"/#/blogs/{blog.id}")

    page.get_by_role("button", name="举报这篇笔记").click()
    page.get_by_label("举报原因").select_option("fake")
    page.get_by_label("补充说明（选填）").fill("照片是网图")
    page.get_by_role("button", name="提交举报").click()
    expect(page.get_by_text("感谢反馈，管理员会尽快处理。")).to_be_visible()
    note_report = Report.objects.get(kind="blog")
    assert (note_report.target_id, note_report.reason, note_report.text) == (
        blog.id,
        "fake",
        "照片是网图",
    )
    screenshot(page, "report")

    item = page.locator(".comment", has_text="加微信领券")
    item.get_by_role("button", name="举报").click()
    item.get_by_label("举报原因").select_option("spam")
    item.get_by_role("button", name="提交举报").click()
    expect(item.get_by_role("status")).to_have_text("感谢反馈，管理员会尽快处理。")
    assert Report.objects.filter(kind="comment", target_id=comment.id, reason="spam").exists()


def test_the_cancelled_tab_of_my_vouchers(page: Page) -> None:
    voucher = NormalVoucherFactory(title="双人下午茶", pay_value=100)
    log_in(page, "13900000105")
    page.goto(f"/#/shops/{voucher.shop_id}")
    card = page.locator("article", has_text="双人下午茶")
    card.get_by_role("button", name="领取").click()
    expect(card.get_by_role("status")).to_contain_text("领到了！")
    page.goto("/#/vouchers?tab=unpaid")
    page.get_by_role("button", name="取消订单").click()
    expect(page.get_by_text("已取消。")).to_be_visible()

    page.get_by_role("tab", name="已取消").click()

    expect(page.locator("article", has_text="双人下午茶")).to_contain_text("已取消")
    expect(page.get_by_role("tab", name="已取消")).to_have_attribute("aria-selected", "true")
    page.get_by_role("tab", name="已退款").click()
    expect(page.get_by_text("没有退款的券。")).to_be_visible()
