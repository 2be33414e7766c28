"""The demo data has pictures (drawn at seed time, nothing downloaded): every shop, every
demo blog and every demo user, each a real picture the app serves."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from PIL import Image

from accounts.models import User
from blogs.demo import NOTES
from blogs.models import Blog
from shops.models import Shop


def _served_picture(client, url: str) -> Image.Image:
    response = client.get(url)
    assert response.status_code == 200, url
    return Image.open(io.BytesIO(b"".join(response.streaming_content)))


@pytest.mark.django_db(transaction=True)
def test_every_demo_shop_blog_and_user_has_a_picture(client) -> None:
    call_command("seed_demo", "--force")

    shop_images = Shop.objects.values_list("images", flat=True)
    shop_pictures = {url for images in shop_images for url in images}
    assert not Shop.objects.filter(images=[]).exists()
    assert 10 <= len(shop_pictures) <= 40  # a few per type, shared
    notes = Blog.objects.filter(
        content__in=[content for *_, content in NOTES]
    )  # not the short reviews
    assert all(len(images) >= 1 for images in notes.values_list("images", flat=True))
    demo_users = User.objects.filter(phone__startswith="138000000")  # 10 and the merchant
    assert demo_users.count() == 11
    assert all(user.icon for user in demo_users)

    blog = Blog.objects.first()
    assert blog is not None
    some = [*sorted(shop_pictures)[:3], blog.images[0], demo_users[0].icon]
    for url in some:
        picture = _served_picture(client, url)
        assert picture.format == "JPEG"
        colors = picture.convert("RGB").resize((8, 8)).getcolors(64)
        assert colors is not None
        assert len(colors) > 4  # not blank


@pytest.mark.django_db(transaction=True)
def test_a_picture_chosen_since_survives_a_second_seed(client) -> None:
    call_command("seed_demo", "--force")
    user = User.objects.get(phone="13800000001")
    User.objects.filter(pk=user.pk).update(icon="https://example.com/me.png")

    call_command("seed_demo", "--force")

    assert User.objects.get(pk=user.pk).icon == "https://example.com/me.png"
