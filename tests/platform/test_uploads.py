"""Picture uploads (docs/product/content.md#pictures): re-encoded with Pillow, EXIF
gone, thumbnails made, stored through Django's storage API; anything else is a 400 that
stores nothing."""

from __future__ import annotations

import io
import os
import signal
import threading
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import translation
from PIL import Image

from pictures import images, imagework
from tests.helpers import throttle_rates, wait_until


def _picture(fmt: str = "JPEG", size: tuple[int, int] = (800, 600), **save) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (200, 30, 30)).save(out, format=fmt, **save)
    return out.getvalue()


def _with_gps_exif() -> bytes:
    exif = Image.Exif()
    exif[0x010F] = "PhoneMaker"  # Make
    exif[0x0112] = 6  # Orientation: rotate 90° clockwise to view
    exif.get_ifd(0x8825)[2] = (31.0, 13.0, 49.0)  # GPSLatitude: where the photo was taken
    return _picture(exif=exif.tobytes())


def _upload(api, data: bytes, name: str = "photo.jpg"):
    return api.post("/api/uploads", {"file": SimpleUploadedFile(name, data)}, format="multipart")


def _stored(settings, url: str) -> Path:
    return Path(settings.MEDIA_ROOT) / url.split(settings.MEDIA_URL, 1)[1]


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.mark.django_db
@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP"])
def test_a_picture_is_stored_with_a_thumbnail(user_api, settings, fmt) -> None:
    response = _upload(user_api, _picture(fmt, (1600, 900)), f"photo.{fmt.lower()}")

    assert response.status_code == 201
    body = response.json()
    assert (body["width"], body["height"]) == (1600, 900)
    assert body["url"].startswith("/media/uploads/")  # a path, as demo pictures are
    with Image.open(_stored(settings, body["url"])) as stored:
        assert (stored.format, stored.size) == (fmt, (1600, 900))
    with Image.open(_stored(settings, body["thumbnail_url"])) as thumbnail:
        assert thumbnail.size == (400, 225)  # within 400 x 400, same shape
    assert user_api.get(body["url"]).status_code == 200
    # What the upload answers is what a note's images and an avatar take.
    note = {"title": "t", "content": "c", "images": [body["url"]]}
    assert user_api.post("/api/blogs", note, format="json").status_code == 201
    assert user_api.patch("/api/users/me", {"icon": body["url"]}, format="json").status_code == 200


@pytest.mark.django_db
def test_exif_is_stripped_and_the_picture_turned_upright(user_api, settings) -> None:
    raw = _with_gps_exif()
    assert Image.open(io.BytesIO(raw)).getexif()  # the test's own check: it has some

    body = _upload(user_api, raw).json()

    with Image.open(_stored(settings, body["url"])) as stored:
        assert not stored.getexif()  # no camera, no GPS position, no orientation left
        assert "exif" not in stored.info
        assert stored.size == (600, 800)  # rotated as the orientation asked
    assert (body["width"], body["height"]) == (600, 800)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"GIF89a" + b"\x00" * 100, "not_an_image"),  # a format we do not take
        (b"just some text, not a picture", "not_an_image"),
        (_picture()[:200], "not_an_image"),  # a truncated JPEG
        (_picture("GIF"), "not_an_image"),
    ],
)
def test_anything_else_is_a_400_that_stores_nothing(user_api, media_root, data, code) -> None:
    response = _upload(user_api, data)

    assert response.status_code == 400
    assert response.json()["code"] == code
    assert not any(Path(media_root).rglob("*.*"))


@pytest.mark.django_db
@pytest.mark.parametrize("size", [images.MAX_BYTES + 1, 20 * 1024 * 1024])
def test_a_file_over_5_mb_is_a_413_that_stores_nothing(user_api, media_root, size) -> None:
    # Just over: read, and refused by its size; far over: refused before it is read.
    response = _upload(user_api, b"\xff" * size)

    assert response.status_code == 413
    assert response.json()["code"] in ("image_too_large", "payload_too_large")
    assert not any(Path(media_root).rglob("*.*"))


@pytest.mark.django_db
def test_a_decompression_bomb_is_refused_before_it_is_decoded(user_api, media_root) -> None:
    out = io.BytesIO()
    Image.new("1", (20_000, 20_000)).save(out, format="PNG")  # 400 MP, a few dozen KB
    assert len(out.getvalue()) < 200_000

    response = _upload(user_api, out.getvalue(), "bomb.png")

    assert response.status_code == 400
    assert response.json()["code"] == "image_too_many_pixels"
    assert not any(Path(media_root).rglob("*.*"))


def _never_decoded(*_: object) -> None:
    pytest.fail("the picture reached the image process")


@pytest.mark.django_db
def test_a_tiny_file_claiming_a_huge_picture_is_refused(user_api, media_root, monkeypatch) -> None:
    monkeypatch.setattr(imagework, "run", _never_decoded)  # refused from its header alone
    out = io.BytesIO()
    Image.new("L", (8000, 5000)).save(out, format="WEBP", lossless=True)  # 40 MP
    assert len(out.getvalue()) < 2_000  # the reported bomb was 34 bytes of the same

    response = _upload(user_api, out.getvalue(), "bomb.webp")

    assert (response.status_code, response.json()["code"]) == (400, "image_too_many_pixels")
    assert not any(Path(media_root).rglob("*.*"))


@pytest.mark.django_db
def test_the_bomb_check_reads_the_header_alone(user_api, media_root, monkeypatch) -> None:
    monkeypatch.setattr(imagework, "run", _never_decoded)
    # The header of a 12-megapixel PNG, cut off where its pixels begin: decoding would
    # fail on the missing data (`not_an_image`); refused for its pixel count, it never was.
    out = io.BytesIO()
    Image.new("RGB", (4000, 3000)).save(out, format="PNG")
    header = out.getvalue()[:64]

    response = _upload(user_api, header, "cut.png")

    assert (response.status_code, response.json()["code"]) == (400, "image_too_many_pixels")
    assert not any(Path(media_root).rglob("*.*"))


@pytest.mark.django_db
def test_a_flat_picture_over_a_megapixel_is_still_a_picture(user_api, media_root) -> None:
    flat = _picture("PNG", (3000, 2000))  # one colour: about 300 pixels a byte
    assert len(flat) * images.MAX_PIXELS_PER_BYTE > 3000 * 2000

    assert _upload(user_api, flat, "banner.png").status_code == 201


@pytest.mark.django_db
def test_uploads_beyond_the_picture_queue_are_503_at_once_and_store_nothing(
    user_api, media_root, settings
) -> None:
    settings.IMAGE_WORK_QUEUE = 1
    imagework._reset()  # a queue of the size just set
    release = threading.Event()

    def hold() -> None:
        with imagework.slot():
            release.wait()

    # The image process busy with one picture, and one more waiting for it.
    holders = [threading.Thread(target=hold) for _ in range(2)]
    for holder in holders:
        holder.start()
    wait_until(lambda: imagework._slots is not None and imagework._slots._value == 0)
    try:
        response = _upload(user_api, _picture())
    finally:
        release.set()
        for holder in holders:
            holder.join(timeout=10)

    assert (response.status_code, response.json()["code"]) == (503, "busy")
    assert response["Retry-After"] == str(settings.IMAGE_WORK_RETRY_AFTER)
    assert not any(Path(media_root).rglob("*.*"))
    assert _upload(user_api, _picture()).status_code == 201  # the queue drained


def test_picture_work_runs_in_a_process_of_its_own_at_a_lower_cpu_priority(settings) -> None:
    server_process = os.getpriority(os.PRIO_PROCESS, 0)

    image_process = imagework.run(os.getpid)

    assert image_process != os.getpid()  # apart from the server process's GIL
    niceness = imagework.run(os.getpriority, os.PRIO_PROCESS, 0)
    assert niceness == min(19, server_process + settings.IMAGE_WORK_NICE)


@pytest.mark.django_db
def test_a_dead_image_process_costs_one_picture_not_the_later_ones(user_api, media_root) -> None:
    os.kill(imagework.run(os.getpid), signal.SIGKILL)  # as the OOM killer would

    lost = _upload(user_api, _picture())
    assert (lost.status_code, lost.json()["code"]) == (503, "busy")
    assert not any(Path(media_root).rglob("*.*"))

    assert _upload(user_api, _picture()).status_code == 201  # a fresh image process
    assert imagework.run(os.getpid) != os.getpid()


def test_a_refusal_in_the_image_process_keeps_its_code_and_the_request_s_language() -> None:
    with translation.override("en"), pytest.raises(images.InvalidInput) as refused:
        imagework.run(images.clean_image, _picture()[:300])  # a truncated JPEG

    assert refused.value.code == "not_an_image"
    assert refused.value.detail == "Send a JPEG, PNG or WebP picture we can read."


@pytest.mark.django_db
def test_uploads_need_login_a_file_and_are_rate_limited(
    api, user_api, settings, media_root
) -> None:
    assert _upload(api, _picture()).status_code == 401
    assert user_api.post("/api/uploads", {}, format="multipart").status_code == 400
    throttle_rates(settings, upload_user="2/hour")
    statuses = [_upload(user_api, _picture()).status_code for _ in range(3)]
    assert statuses == [201, 201, 429]
    assert len(list(Path(media_root).rglob("*.*"))) == 2 * 2  # two pictures and thumbnails


@pytest.mark.django_db
def test_a_phone_s_jpeg_with_a_second_picture_is_a_jpeg(user_api, settings) -> None:
    out = io.BytesIO()
    first, gain_map = Image.new("RGB", (64, 48), (200, 0, 0)), Image.new("RGB", (64, 48))
    first.save(out, format="MPO", save_all=True, append_images=[gain_map])  # as phones do

    body = _upload(user_api, out.getvalue()).json()

    with Image.open(_stored(settings, body["url"])) as stored:
        assert (stored.format, stored.size) == ("JPEG", (64, 48))


@pytest.mark.django_db
def test_colours_survive_the_re_encoding(user_api, settings) -> None:
    grey16 = Image.new("I;16", (4, 1))
    grey16.putdata([0, 20000, 40000, 65535])
    out = io.BytesIO()
    grey16.save(out, format="PNG")

    body = _upload(user_api, out.getvalue(), "scan.png").json()

    with Image.open(_stored(settings, body["url"])) as stored:
        colors = stored.convert("L").getcolors()
        assert colors is not None
        assert sorted(colors) == [(1, 0), (1, 77), (1, 155), (1, 255)]
        assert "icc_profile" not in stored.info
