"""Many likers at once, each liking twice in racing requests: one notification per liker,
and the unread count exact."""

from __future__ import annotations

import pytest

from notifications.models import Notification
from tests.factories import BlogFactory, UserFactory
from tests.helpers import client_for, run_concurrently


@pytest.mark.django_db(transaction=True)
def test_racing_likes_tell_the_author_once_per_liker(user) -> None:
    note = BlogFactory(user=user)
    likers = UserFactory.create_batch(12)
    clients = [client_for(liker) for liker in likers]

    statuses = run_concurrently(
        lambda i: clients[i // 2].post(f"/api/blogs/{note.id}/like").status_code, workers=24
    )

    assert statuses == [200] * 24
    told = Notification.objects.filter(recipient=user, kind="liked")
    assert sorted(told.values_list("actor_id", flat=True)) == sorted(u.id for u in likers)
    author = client_for(user)
    assert author.get("/api/notifications/unread-count").json() == {"unread": 12}
    assert author.post("/api/notifications/read", {"all": True}, format="json").json() == {
        "unread": 0
    }
