"""Ops commands: issue_tokens and seed_demo."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from accounts import demo
from accounts.models import User
from blogs.models import Blog
from tests.helpers import client_for


@pytest.mark.django_db
def test_issue_tokens_writes_working_tokens_and_reuses_users(tmp_path, api) -> None:
    out = tmp_path / "tokens.txt"

    call_command("issue_tokens", "--count", "5", "--out", str(out))
    first = out.read_text().split()
    call_command("issue_tokens", "--count", "5", "--out", str(out))
    second = out.read_text().split()

    assert len(first) == len(set(first)) == 5
    assert set(first).isdisjoint(second)
    assert User.objects.filter(phone__startswith="100").count() == 5
    ids = {
        api.get("/api/users/me", HTTP_AUTHORIZATION=f"Bearer {t}").json()["id"]
        for t in first + second
    }
    assert len(ids) == 5
    assert not User.objects.filter(is_staff=True).exists()


@pytest.mark.django_db
def test_issue_tokens_for_staff(tmp_path) -> None:
    out = tmp_path / "staff.txt"

    call_command("issue_tokens", "--count", "2", "--staff", "--out", str(out))

    assert len(out.read_text().split()) == 2
    assert list(
        User.objects.filter(is_staff=True).values_list("phone", flat=True).order_by("phone")
    ) == [
        "10100000000",
        "10100000001",
    ]


@pytest.mark.django_db
def test_issue_tokens_never_touches_real_phone_numbers(tmp_path) -> None:
    from accounts.management.commands.issue_tokens import load_test_phones
    from accounts.serializers import PHONE_RE

    phones = load_test_phones(1000, staff=False) + load_test_phones(1000, staff=True)

    assert not any(PHONE_RE.fullmatch(phone) for phone in phones)


@pytest.mark.django_db
def test_issue_tokens_for_one_existing_account(user, api, capsys) -> None:
    call_command("issue_tokens", "--phone", user.phone)
    token = capsys.readouterr().out.strip()

    assert api.get("/api/users/me", HTTP_AUTHORIZATION=f"Bearer {token}").json()["id"] == user.id
    with pytest.raises(CommandError, match="no active account"):
        call_command("issue_tokens", "--phone", "13999999999")
    with pytest.raises(CommandError, match="never promotes"):
        call_command("issue_tokens", "--phone", user.phone, "--staff")
    assert User.objects.count() == 1
    assert not User.objects.filter(is_staff=True).exists()


@pytest.mark.django_db
@pytest.mark.parametrize("count", ["0", "-3", "2000000"])
def test_issue_tokens_rejects_silly_counts(count) -> None:
    with pytest.raises(CommandError):
        call_command("issue_tokens", "--count", count)
    assert User.objects.count() == 0


@pytest.mark.django_db
def test_seed_demo_is_idempotent_and_its_admin_can_log_in(capsys, settings) -> None:
    settings.DEBUG = True  # as under `make run`
    call_command("seed_demo")
    counts = User.objects.count()
    assert f"password={demo.ADMIN_PASSWORD}" in capsys.readouterr().out
    admin = User.objects.get(username=demo.ADMIN_USERNAME)
    admin.set_password("changed-on-purpose")
    admin.save()

    call_command("seed_demo")

    assert User.objects.count() == counts == len(demo.DEMO_USERS) + 2  # + admin, the demo merchant
    assert "(password unchanged)" in capsys.readouterr().out
    assert Client().login(username=demo.ADMIN_USERNAME, password="changed-on-purpose")
    assert not Client().login(username=demo.ADMIN_USERNAME, password=demo.ADMIN_PASSWORD)


@pytest.mark.django_db
def test_seed_demo_reports_the_streak_as_it_stands(capsys, fake_clock) -> None:
    """Run again two days later, the seed signs the twelve days before the new today,
    which join the twelve it signed before: the streak is 14 days now, and the message
    says so (it said "12-day" whatever the history)."""
    from datetime import timedelta

    call_command("seed_demo", "--force")
    assert "has a 12-day streak, sign today to extend it" in capsys.readouterr().out
    fake_clock.advance(timedelta(days=2).total_seconds())

    call_command("seed_demo", "--force")

    assert "has a 14-day streak, sign today to extend it" in capsys.readouterr().out


@pytest.mark.django_db
def test_seed_demo_restarted_adds_no_sale_and_reports_what_the_api_shows(
    capsys, fake_clock
) -> None:
    """A restart 30 minutes later (the later sale has begun) creates no sale; its messages
    count the notes as hot lists them and the unread notifications as the bell does."""
    from datetime import timedelta

    from vouchers.models import Voucher

    call_command("seed_demo", "--force")
    sales = Voucher.objects.filter(type=Voucher.Kind.SECKILL).count()
    assert "flash sales: 2 on now, the next at " in capsys.readouterr().out
    fake_clock.advance(timedelta(minutes=30).total_seconds())

    call_command("seed_demo", "--force")

    out = capsys.readouterr().out
    assert Voucher.objects.filter(type=Voucher.Kind.SECKILL).count() == sales
    assert "flash sales: 3 on now, none later" in out
    me = User.objects.get(phone=demo.DEMO_USERS[0][0])
    unread = client_for(me).get("/api/notifications/unread-count").json()["unread"]
    assert f", {unread} of them unread" in out
    hot = Blog.objects.filter(status=Blog.Status.VISIBLE).count()
    assert f"notes: {hot} (0 new" in out


@pytest.mark.django_db
def test_seed_demo_forced_with_debug_off_never_makes_an_operator(capsys) -> None:
    call_command("seed_demo", "--force")  # the production settings' DEBUG is off

    assert not User.objects.filter(username=demo.ADMIN_USERNAME).exists()
    assert not User.objects.filter(is_staff=True).exists()
    assert "not created with DEBUG off" in capsys.readouterr().out


@pytest.mark.django_db
def test_seed_demo_refuses_to_run_without_debug_unless_forced() -> None:
    with pytest.raises(CommandError, match="--force"):
        call_command("seed_demo")
    assert User.objects.count() == 0
