"""The console and file SMS backends are what a developer reads codes from."""

from __future__ import annotations

import pytest

from accounts.sms import send_sms


def test_console_backend_prints_the_message(settings, capsys) -> None:
    settings.SMS_BACKEND = "console"

    send_sms("13912345678", "Your Dianping login code is 123456.")

    printed = capsys.readouterr().out
    assert "\n==> SMS to 13912345678: Your Dianping login code is 123456.\n" in printed


def test_file_backend_writes_one_file_per_message(settings, tmp_path) -> None:
    settings.SMS_BACKEND = "file"
    settings.SMS_FILE_PATH = tmp_path / "sms"

    send_sms("13912345678", "first")
    send_sms("13912345678", "second")

    files = sorted((tmp_path / "sms").iterdir())
    assert len(files) == 2
    assert all(f.name.endswith(".txt") and "13912345678" in f.name for f in files)
    assert {f.read_text().split("\n\n", 1)[1].strip() for f in files} == {"first", "second"}


@pytest.mark.django_db
def test_login_code_reaches_the_file_backend(settings, tmp_path, api) -> None:
    settings.SMS_BACKEND = "file"
    settings.SMS_FILE_PATH = tmp_path

    api.post("/api/auth/code", {"phone": "13912345678"}, format="json")

    (message,) = tmp_path.iterdir()
    assert "【大众点评】您的登录验证码是" in message.read_text()  # in the requester's language
