"""Pictures users upload (blog photos, avatars): cleaned by `pictures.images`, stored
through Django's storage API, so local media by default and any S3-compatible store
when configured (settings: MEDIA_S3_BUCKET)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from pictures import imagework
from pictures.images import clean_image, inspect_image
from toolkit import clock


@dataclass(frozen=True, slots=True)
class StoredImage:
    url: str
    thumbnail_url: str
    width: int
    height: int


def image_upload(*, raw: bytes) -> StoredImage:
    """Clean and store one picture and its thumbnail under unguessable names."""
    inspect_image(raw)  # a bomb or a non-picture is refused before it queues
    image = imagework.run(clean_image, raw)  # bounded, beside the requests
    stem = f"uploads/{clock.now():%Y/%m}/{secrets.token_urlsafe(16)}"
    name = default_storage.save(f"{stem}.{image.extension}", ContentFile(image.data))
    thumbnail = default_storage.save(
        f"{stem}.thumb.{image.extension}", ContentFile(image.thumbnail)
    )
    return StoredImage(
        url=default_storage.url(name),
        thumbnail_url=default_storage.url(thumbnail),
        width=image.width,
        height=image.height,
    )
