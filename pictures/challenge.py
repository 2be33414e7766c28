"""A short arithmetic question drawn as a small PNG (the flash sale's challenge): light
noise and a little jitter per character, enough that the text is not in the page for a
script to read, not so much that a person squints. Drawn in memory, stored nowhere."""

from __future__ import annotations

import functools
import io
import random

from PIL import Image, ImageDraw, ImageFont

SIZE = (180, 56)
_INK = [(32, 48, 96), (120, 30, 40), (20, 90, 50), (80, 40, 110)]


@functools.cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's bundled font (FreeType when built with it): nothing to install."""
    return ImageFont.load_default(size=size)


def question_png(text: str, *, rng: random.Random | None = None) -> bytes:
    """`text` (e.g. "7 + 5 = ?") drawn on a light background with a few lines and dots."""
    rng = rng or random.SystemRandom()
    image = Image.new("RGB", SIZE, (250, 247, 240))
    draw = ImageDraw.Draw(image)
    width, height = SIZE
    for _ in range(4):  # faint lines behind the text
        draw.line(
            [(rng.randint(0, width), rng.randint(0, height)) for _ in range(2)],
            fill=(rng.randint(170, 220), rng.randint(170, 220), rng.randint(170, 220)),
            width=1,
        )
    x = 10
    for char in text:
        font = _font(rng.randint(26, 30))
        draw.text((x, rng.randint(8, 16)), char, font=font, fill=rng.choice(_INK))
        x += 14 if char == " " else int(draw.textlength(char, font=font)) + rng.randint(1, 4)
    for _ in range(60):  # speckles over it
        draw.point(
            (rng.randrange(width), rng.randrange(height)),
            fill=(rng.randint(120, 200), rng.randint(120, 200), rng.randint(120, 200)),
        )
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()
