"""Uploaded pictures, made safe to serve: decoded and re-encoded with Pillow, so what we
store is a clean image of a format we accept, without its metadata (EXIF, with the
camera's GPS position, never leaves the server), turned upright, plus a thumbnail.

Pure functions over bytes: no storage, no Django beyond translating the refusals; they
run on the image thread (pictures.imagework). The limits are refused before any pixel is
decoded where they can be: size, format, and the pixel count the header claims, against a
ceiling and against the file's own size (a decompression bomb is a tiny file claiming a
huge picture: 34 bytes of lossless WebP decode to 8000 x 5000 pixels).
"""

from __future__ import annotations

import contextlib
import io
import warnings
from collections.abc import Iterator
from dataclasses import dataclass

from django.utils.translation import gettext
from PIL import Image, ImageCms, ImageOps, UnidentifiedImageError

from toolkit.errors import Code, InvalidInput, PayloadTooLarge

MAX_BYTES = 5 * 1024 * 1024
MAX_PIXELS = 25_000_000  # a 24-megapixel camera's 6000 x 4000 and a little more
# Pictures up to a megapixel decode in milliseconds whatever their file; past that, a
# picture may claim at most this many pixels per byte of its file. Measured here: photos
# carry about 3 pixels a byte, screenshots 10 to 30, even a single flat colour 60 (JPEG),
# 300 (PNG) or 560 (lossy WebP); a flat lossless WebP 25,000, and the reported bomb 1.2 M.
FREE_PIXELS = 1_000_000
MAX_PIXELS_PER_BYTE = 1_000
THUMBNAIL_SIZE = (400, 400)
# Pillow's name → (the format we store, file extension). A phone's JPEG with a second
# picture in it (MPO: HDR gain maps) is a JPEG to its owner, and is stored as one.
FORMATS = {
    "JPEG": ("JPEG", "jpg"),
    "MPO": ("JPEG", "jpg"),
    "PNG": ("PNG", "png"),
    "WEBP": ("WEBP", "webp"),
}
_SRGB = ImageCms.createProfile("sRGB")


@dataclass(frozen=True, slots=True)
class CleanImage:
    data: bytes
    thumbnail: bytes
    extension: str
    content_type: str
    width: int
    height: int


def inspect_image(raw: bytes) -> None:
    """The checks that need no pixel, cheap enough for the request thread, before the
    picture waits for the image thread: its size, its format, and the pixel count its
    header claims (against the ceiling, and against the file's size)."""
    if len(raw) > MAX_BYTES:
        raise too_large()
    with _refusals():
        _open(raw)


def clean_image(raw: bytes) -> CleanImage:
    """Decode, check and re-encode an uploaded picture. InvalidInput (400) for anything
    that is not a JPEG, PNG or WebP within the limits."""
    if len(raw) > MAX_BYTES:
        raise too_large()
    with _refusals():
        image = _open(raw)
        image.load()
    assert image.format is not None  # what Image.open opened it as, one of FORMATS
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


def _open(raw: bytes) -> Image.Image:
    """The picture with its header read and no pixel decoded: refused here if its pixel
    count says it is a bomb. No parser but ours runs (JPEG's also opens MPO)."""
    image = Image.open(io.BytesIO(raw), formats=["JPEG", "PNG", "WEBP"])
    _refuse_bombs(image.width * image.height, len(raw))
    return image


@contextlib.contextmanager
def _refusals() -> Iterator[None]:
    """Pillow's complaints as our 400s."""
    with warnings.catch_warnings():
        # Pillow warns between MAX_IMAGE_PIXELS and twice that and raises beyond it; both
        # are a bomb to us.
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            yield
        except (Image.DecompressionBombError, Image.DecompressionBombWarning):
            raise _too_many_pixels() from None
        except (UnidentifiedImageError, OSError, SyntaxError, ValueError):
            raise InvalidInput(
                gettext("Send a JPEG, PNG or WebP picture we can read."), code=Code.NOT_AN_IMAGE
            ) from None


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
            converted = ImageCms.profileToProfile(image, source, _SRGB, outputMode=mode)
            assert converted is not None  # None only when converted in place
            return converted
        except (ImageCms.PyCMSError, OSError, ValueError):
            pass  # a broken profile: the pixels as they are
    if image.mode == "CMYK":
        return image.convert("RGB")
    return image


def _refuse_bombs(pixels: int, size: int) -> None:
    if pixels > MAX_PIXELS:
        raise _too_many_pixels()
    if pixels > FREE_PIXELS and pixels > size * MAX_PIXELS_PER_BYTE:
        raise InvalidInput(
            gettext("This file is too small for the picture it claims to hold."),
            code=Code.IMAGE_TOO_MANY_PIXELS,
        )


def too_large() -> PayloadTooLarge:
    return PayloadTooLarge(
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
