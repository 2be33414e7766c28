"""Pictures for the demo data, drawn at seed time with Pillow (nothing is downloaded):
soft abstract compositions, deterministic per name, stored through Django's default
storage like uploads, and made only once."""

from __future__ import annotations

import functools
import io
import random

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from PIL import Image, ImageDraw, ImageFilter

# Warm palettes (background top, background bottom, accents) that read well small.
PALETTES = [
    ((250, 214, 165), (214, 93, 57), [(255, 244, 214), (160, 50, 40), (250, 180, 60)]),
    ((200, 230, 201), (56, 142, 60), [(255, 255, 240), (27, 94, 32), (255, 213, 79)]),
    ((187, 222, 251), (30, 136, 229), [(255, 255, 255), (13, 71, 161), (255, 183, 77)]),
    ((248, 187, 208), (194, 24, 91), [(255, 240, 246), (136, 14, 79), (255, 204, 128)]),
    ((225, 190, 231), (123, 31, 162), [(250, 240, 255), (74, 20, 140), (255, 224, 130)]),
    ((255, 224, 178), (245, 124, 0), [(255, 248, 225), (191, 54, 12), (129, 199, 132)]),
]


def demo_picture(name: str, *, size: tuple[int, int] = (640, 480)) -> str:
    """The URL of the demo picture called `name`, drawn and stored the first time."""
    return _stored(name, size, str(settings.MEDIA_ROOT), str(settings.MEDIA_URL))


@functools.cache  # 560 shops share 40 pictures: ask the storage once per picture and place
def _stored(name: str, size: tuple[int, int], _root: str, _url: str) -> str:
    path = f"demo/{name}.jpg"
    if not default_storage.exists(path):
        default_storage.save(path, ContentFile(_draw(name, size)))
    return default_storage.url(path)


def _draw(name: str, size: tuple[int, int]) -> bytes:
    rng = random.Random(name)
    top, bottom, accents = rng.choice(PALETTES)
    width, height = size
    image = Image.new("RGB", size)
    draw = ImageDraw.Draw(image)
    for y in range(height):  # a vertical gradient
        share = y / max(height - 1, 1)
        colour = tuple(round(a + (b - a) * share) for a, b in zip(top, bottom, strict=True))
        draw.line([(0, y), (width, y)], fill=colour)
    shapes = Image.new("RGBA", size, (0, 0, 0, 0))
    pen = ImageDraw.Draw(shapes)
    for _ in range(rng.randint(4, 7)):
        radius = rng.randint(min(size) // 10, min(size) // 3)
        x, y = rng.randint(0, width), rng.randint(0, height)
        pen.ellipse(
            [x - radius, y - radius, x + radius, y + radius],
            fill=(*rng.choice(accents), rng.randint(90, 190)),
        )
    shapes = shapes.filter(ImageFilter.GaussianBlur(radius=2))
    image.paste(shapes, (0, 0), shapes)
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=80)
    return out.getvalue()
