"""`make screenshots` refuses a picture with an empty band (the sticky header drawn mid-page
over nothing, a short page's empty third): the check itself, on pictures drawn here."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from tests.web.conftest import assert_mostly_drawn


def _page(tmp_path, *, drawn_to: float):
    """A 390-wide picture of lines of text (8 px tall, 2 px apart) down to `drawn_to` of its
    height, then white."""
    image = Image.new("RGB", (390, 900), "white")
    draw = ImageDraw.Draw(image)
    for top in range(0, int(900 * drawn_to), 10):
        draw.rectangle([(10, top), (380, top + 7)], fill="black")
    path = tmp_path / "page.png"
    image.save(path)
    return path


def test_a_drawn_page_passes(tmp_path) -> None:
    assert_mostly_drawn(_page(tmp_path, drawn_to=1.0))


def test_a_page_with_an_empty_third_is_refused(tmp_path) -> None:
    with pytest.raises(AssertionError, match="an empty band"):
        assert_mostly_drawn(_page(tmp_path, drawn_to=0.66))
