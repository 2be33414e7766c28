"""Uploaded pictures, made safe to serve: decoded and re-encoded with Pillow, so what we
store is a clean image of a format we accept, without its metadata (EXIF, with the
camera's GPS position, never leaves the server), turned upright, plus a thumbnail.

Pure functions over bytes: no storage, no Django. The limits are refused before any
pixel is decoded where they can be (size, format, pixel count from the header).
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass

from PIL import Image, ImageOps, UnidentifiedImageError

from dianping.errors import Code, InvalidInput

MAX_BYTES = 5 * 1024 * 1024
MAX_PIXELS = 40_000_000  # 8000 x 5000; a decompression bomb claims far more
THUMBNAIL_SIZE = (400, 400)
FORMATS = {"JPEG": "jpg", "PNG": "png", "WEBP": "webp"}  # Pillow's name → file extension


@dataclass(frozen=True, slots=True)
class CleanImage:
    data: bytes
    thumbnail: bytes
    extension: str
    content_type: str
    width: int
    height: int


def clean_image(raw: bytes) -> CleanImage:
    """Decode, check and re-encode an uploaded picture. InvalidInput (400) for anything
    that is not a JPEG, PNG or WebP within the limits."""
    if len(raw) > MAX_BYTES:
        raise InvalidInput("Pictures may be at most 5 MB.", code=Code.IMAGE_TOO_LARGE)
    with warnings.catch_warnings():
        # Pillow warns between MAX_IMAGE_PIXELS and twice that and raises beyond it; both
        # are a bomb to us.
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            image = Image.open(io.BytesIO(raw))
            if image.format not in FORMATS:
                raise InvalidInput("Send a JPEG, PNG or WebP picture.", code=Code.NOT_AN_IMAGE)
            if image.width * image.height > MAX_PIXELS:
                raise _too_many_pixels()
            image.load()
        except (Image.DecompressionBombError, Image.DecompressionBombWarning):
            raise _too_many_pixels() from None
        except (UnidentifiedImageError, OSError, SyntaxError, ValueError):
            raise InvalidInput(
                "This file is not a picture we can read.", code=Code.NOT_AN_IMAGE
            ) from None
    kind = image.format
    upright = ImageOps.exif_transpose(image)  # the orientation EXIF asked for, applied
    thumbnail = upright.copy()
    thumbnail.thumbnail(THUMBNAIL_SIZE)
    return CleanImage(
        data=_encode(upright, kind),
        thumbnail=_encode(thumbnail, kind),
        extension=FORMATS[kind],
        content_type=Image.MIME[kind],
        width=upright.width,
        height=upright.height,
    )


def _too_many_pixels() -> InvalidInput:
    return InvalidInput(
        "This picture has too many pixels (at most 40 megapixels).",
        code=Code.IMAGE_TOO_MANY_PIXELS,
    )


def _encode(image: Image.Image, kind: str) -> bytes:
    """Encode anew, keeping nothing of the original file but its pixels."""
    if kind == "JPEG" and image.mode not in ("RGB", "L"):
        image = image.convert("RGB")
    elif kind != "JPEG" and image.mode not in ("RGB", "RGBA", "L", "LA"):
        image = image.convert("RGBA")
    out = io.BytesIO()
    options = {"quality": 85} if kind in ("JPEG", "WEBP") else {"optimize": True}
    image.save(out, format=kind, **options)  # no exif= and no info: no metadata
    return out.getvalue()
