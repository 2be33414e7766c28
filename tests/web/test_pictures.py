"""Pictures in a real browser: a note with photos (picked, previewed, uploaded with
progress, then shown on the note) and a new profile picture."""

from __future__ import annotations

import io

import pytest
from PIL import Image
from playwright.sync_api import FilePayload, Page, expect

from accounts.models import User
from blogs.models import Blog
from tests.web.conftest import log_in, screenshot

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _png(colour: tuple[int, int, int], size: tuple[int, int] = (640, 480)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, format="PNG")
    return out.getvalue()


def _loaded(page: Page, img, *, width: int) -> None:
    """Wait until the browser has really loaded the picture from the server."""
    page.wait_for_function("([img, w]) => img.complete && img.naturalWidth === w", arg=[img, width])


@pytest.fixture(autouse=True)
def _media(settings, tmp_path) -> None:
    settings.MEDIA_ROOT = tmp_path / "media"


def test_post_a_note_with_two_photos(page: Page) -> None:
    log_in(page, "13900000031")
    page.goto("/#/write")
    page.get_by_label("标题").fill("两道招牌菜")
    page.get_by_label("体验如何？").fill("都很好吃。")

    files: list[FilePayload] = [
        {"name": "noodles.png", "mimeType": "image/png", "buffer": _png((200, 60, 30))},
        {"name": "dumplings.png", "mimeType": "image/png", "buffer": _png((240, 220, 180))},
    ]
    page.get_by_label("图片（最多 9 张）").set_input_files(files)

    pictures = page.get_by_role("list", name="已选图片")
    expect(pictures.get_by_role("img")).to_have_count(2)  # previews, at once
    expect(pictures.get_by_text("已上传")).to_have_count(2)
    screenshot(page, "write-with-photos")
    page.get_by_role("button", name="发布").click()

    expect(page.get_by_role("heading", name="两道招牌菜")).to_be_visible()
    photos = page.get_by_role("img", name="《两道招牌菜》的第")
    expect(photos).to_have_count(2)
    for i in range(2):  # the stored pictures really load
        _loaded(page, photos.nth(i).element_handle(), width=640)
    blog = Blog.objects.get()
    assert len(blog.images) == 2
    assert all("/media/uploads/" in url for url in blog.images)


def test_change_the_profile_picture(page: Page) -> None:
    log_in(page, "13900000032")
    me = User.objects.get(phone="13900000032")
    page.goto(f"/#/users/{me.id}")

    page.get_by_label("更换头像").set_input_files(
        {"name": "me.png", "mimeType": "image/png", "buffer": _png((30, 120, 200), (300, 300))}
    )
    expect(page.get_by_text("已上传")).to_be_visible()
    page.get_by_role("button", name="保存头像").click()

    expect(page.get_by_role("status").filter(has_text="已保存。")).to_be_visible()
    avatar = page.get_by_role("img", name=f"{me.nick_name} 的头像")
    _loaded(page, avatar.element_handle(), width=300)
    me.refresh_from_db()
    assert "/media/uploads/" in me.icon
