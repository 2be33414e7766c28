"""Uploaded pictures, made safe to serve: decoded and re-encoded with Pillow, so what we
store is a clean image of a format we accept, without its metadata (EXIF, with the
camera's GPS position, never leaves the server), turned upright, plus a thumbnail.

Pure functions over bytes: no storage, no Django beyond translating the refusals. The
limits are refused before any pixel is decoded where they can be (size, format, pixel
count from the header).
"""

from __future__ import annotations

import io
import threading
import warnings
from dataclasses import dataclass

from django.utils.translation import gettext
from PIL import Image, ImageCms, ImageOps, UnidentifiedImageError

from dianping.errors import Code, InvalidInput

MAX_BYTES = 5 * 1024 * 1024
MAX_PIXELS = 40_000_000  # 8000 x 5000; a decompression bomb claims far more
THUMBNAIL_SIZE = (400, 400)
# Pillow's name → (the format we store, file extension). A phone's JPEG with a second
# picture in it (MPO: HDR gain maps) is a JPEG to its owner, and is stored as one.
FORMATS = {
    "JPEG": ("JPEG", "jpg"), "MPO": ("JPEG", "jpg"),
    "PNG": ("PNG", "png"), "WEBP": ("WEBP", "webp"),
}  # fmt: skip
# Decoding a big picture takes a few hundred MB for a moment: at most two at once per
# process, the others wait their turn.
_DECODING = threading.BoundedSemaphore(2)
_SRGB = ImageCms.createProfile("sRGB")


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
        raise too_large()
    with _DECODING:
        image = _decode(raw)
        kind, extension = FORMATS[image.format]
        ImageOps.exif_transpose(image, in_place=True)  # upright, as EXIF asked
        image = _in_srgb(image)
        scale = min(THUMBNAIL_SIZE[0] / image.width, THUMBNAIL_SIZE[1] / image.height, 1)
        thumbnail = image.resize(
            (max(1, round(image.width * scale)), max(1, round(image.height * scale))),
            Image.Resampling.LANCZOS,
        )
        return CleanImage(
            data=_encode(image, kind),
            thumbnail=_encode(thumbnail, kind),
            extension=extension,
            content_type=Image.MIME[kind],
            width=image.width,
            height=image.height,
        )


def _decode(raw: bytes) -> Image.Image:
    with warnings.catch_warnings():
        # Pillow warns between MAX_IMAGE_PIXELS and twice that and raises beyond it; both
        # are a bomb to us.
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            # No other parser runs (JPEG's also opens MPO).
            image = Image.open(io.BytesIO(raw), formats=["JPEG", "PNG", "WEBP"])
            if image.width * image.height > MAX_PIXELS:
                raise _too_many_pixels()
            image.load()
        except (Image.DecompressionBombError, Image.DecompressionBombWarning):
            raise _too_many_pixels() from None
        except (UnidentifiedImageError, OSError, SyntaxError, ValueError):
            raise InvalidInput(
                gettext("Send a JPEG, PNG or WebP picture we can read."), code=Code.NOT_AN_IMAGE
            ) from None
    return image


def _in_srgb(image: Image.Image) -> Image.Image:
    """Pixels in sRGB (8 bits), the colours the picture was meant to show: its embedded
    colour profile (a phone's Display P3, a CMYK print file) applied, since the profile
    is not kept; 16-bit greys scaled down, not clipped."""
    if image.mode in ("I;16", "I;16B", "I;16L", "I"):
        image = image.point(lambda v: v / 257).convert("L")
    profile = image.info.get("icc_profile")
    if profile:
        mode = "RGBA" if "A" in image.getbands() else "RGB"
        try:
            source = ImageCms.ImageCmsProfile(io.BytesIO(profile))
            return ImageCms.profileToProfile(image, source, _SRGB, outputMode=mode)
        except (ImageCms.PyCMSError, OSError, ValueError):
            pass  # a broken profile: the pixels as they are
    if image.mode == "CMYK":
        return image.convert("RGB")
    return image


def too_large() -> InvalidInput:
    return InvalidInput(
        gettext("Pictures may be at most %(mb)s MB.") % {"mb": MAX_BYTES // (1024 * 1024)},
        code=Code.IMAGE_TOO_LARGE,
    )


def _too_many_pixels() -> InvalidInput:
    return InvalidInput(
        gettext("This picture has too many pixels (at most %(mp)s megapixels).")
        % {"mp": MAX_PIXELS // 1_000_000},
        code=Code.IMAGE_TOO_MANY_PIXELS,
    )


def _encode(image: Image.Image, kind: str) -> bytes:
    """Encode anew, keeping nothing of the original file but its pixels."""
    if kind == "JPEG" and image.mode not in ("RGB", "L"):
        image = image.convert("RGB")
    elif kind != "JPEG" and image.mode not in ("RGB", "RGBA", "L", "LA"):
        image = image.convert("RGBA")
    image.info = {}  # Pillow would write a profile or text chunks kept there: nothing
    out = io.BytesIO()
    options = {"quality": 85} if kind in ("JPEG", "WEBP") else {"optimize": True}
    image.save(out, format=kind, **options)  # no exif=, no icc_profile=: no metadata
    return out.getvalue()
