from __future__ import annotations

import pytest
from django.core.management import call_command

from accounts.models import User
from notifications.models import Notification
from tests.helpers import client_for


@pytest.mark.django_db(transaction=True)
def test_demo_user_1_finds_notifications_waiting(fake_clock) -> None:
    call_command("seed_demo", "--force")
    demo = User.objects.get(phone="13800000001")
    count = Notification.objects.filter(recipient=demo).count()
    call_command("seed_demo", "--force")  # idempotent: nothing doubles

    kinds = {n["kind"] for n in client_for(demo).get("/api/notifications").json()["results"]}
    assert {"followed", "liked", "commented", "sale_starting"} <= kinds
    assert Notification.objects.filter(recipient=demo).count() == count
    assert client_for(demo).get("/api/notifications/unread-count").json() == {"unread": count}
