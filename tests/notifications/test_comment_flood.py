"""Comments cannot flush an inbox (decisions 285, 287, 288): a note's comments fold into
one unread item per recipient, which moves to the top and counts them; once read, the next
comment starts a new item; one user's comments tell another at most
NOTIFICATIONS_COMMENTS_PER_HOUR times an hour; taking a comment back keeps the others."""

from __future__ import annotations

from typing import Any

import pytest

from blogs import services as blogs
from blogs.models import BlogComment
from notifications import producers
from notifications.models import Notification
from tests.factories import BlogFactory, UserFactory
from tests.helpers import client_for, run_concurrently

pytestmark = pytest.mark.django_db(transaction=True)  # told after the comment's commit


def _inbox(user) -> list[dict[str, Any]]:
    """Every page of the user's inbox, newest first."""
    api = client_for(user)
    items: list[dict[str, Any]] = []
    params: dict[str, str] = {}
    while True:
        response = api.get("/api/notifications", params)
        assert response.status_code == 200
        items += response.json()["results"]
        if response.json()["last_id"] is None:
            return items
        params = {"last_id": response.json()["last_id"]}


def _seen(user) -> list[tuple]:
    """Each item as (kind, actor, note, count, comment excerpt, read)."""
    return [
        (
            n["kind"],
            n["actor"] and n["actor"]["id"],
            n["blog"] and n["blog"]["id"],
            n["count"],
            n["comment"] and n["comment"]["content"],
            n["read"],
        )
        for n in _inbox(user)
    ]


def _unread(user) -> int:
    return client_for(user).get("/api/notifications/unread-count").json()["unread"]


def _comment(note, author, content: str, parent: BlogComment | None = None) -> BlogComment:
    return blogs.comment_create(
        blog_id=note.id,
        user_id=author.id,
        content=content,
        parent_id=parent.id if parent is not None else None,
    )


def _real_notifications(victim) -> tuple[Any, Any, Any, Any, Any]:
    """A follow, a like of `flooded` and a friend's comment on `other`: what a flood must
    not push out."""
    follower, liker, friend = UserFactory(), UserFactory(), UserFactory()
    flooded, other = BlogFactory(user=victim, title="被刷"), BlogFactory(user=victim, title="别的")
    assert client_for(follower).put(f"/api/follows/{victim.id}").status_code == 200
    assert client_for(liker).post(f"/api/blogs/{flooded.id}/like").status_code == 200
    _comment(other, friend, "真好")
    return follower, liker, friend, flooded, other


def test_a_flood_of_comments_on_one_note_leaves_the_other_notifications(user, settings) -> None:
    settings.NOTIFICATIONS_MAX = 5  # the flood below would have filled it twenty times
    follower, liker, friend, flooded, other = _real_notifications(user)
    attacker = UserFactory()

    for i in range(100):
        _comment(flooded, attacker, f"刷屏{i}")

    assert BlogComment.objects.filter(blog=flooded, user=attacker).count() == 100  # all posted
    assert _seen(user) == [
        ("commented", attacker.id, flooded.id, 20, "刷屏19", False),  # the cap: 20 an hour
        ("commented", friend.id, other.id, 1, "真好", False),
        ("liked", liker.id, flooded.id, 1, None, False),
        ("followed", follower.id, None, 1, None, False),
    ]
    assert _unread(user) == 4
    assert Notification.objects.filter(recipient=user).count() == 4


def test_a_flood_over_many_notes_is_capped_and_leaves_the_other_notifications(
    user, settings
) -> None:
    settings.NOTIFICATIONS_MAX = 25
    follower, liker, friend, flooded, other = _real_notifications(user)
    attacker = UserFactory()
    notes = BlogFactory.create_batch(30, user=user)

    for note in notes:
        _comment(note, attacker, "刷")

    seen = _seen(user)
    assert seen[:20] == [
        ("commented", attacker.id, note.id, 1, "刷", False) for note in reversed(notes[:20])
    ]
    assert seen[20:] == [
        ("commented", friend.id, other.id, 1, "真好", False),
        ("liked", liker.id, flooded.id, 1, None, False),
        ("followed", follower.id, None, 1, None, False),
    ]
    assert _unread(user) == 23


def test_comments_fold_while_unread_and_the_item_moves_to_the_top(user, other_user) -> None:
    note, liked = BlogFactory(user=user, title="笔记"), BlogFactory(user=user)
    third = UserFactory()
    _comment(note, other_user, "一")
    first_id = _inbox(user)[0]["id"]
    client_for(third).post(f"/api/blogs/{liked.id}/like")

    _comment(note, third, "二")
    _comment(note, other_user, "三")

    items = _inbox(user)
    assert _seen(user) == [
        ("commented", other_user.id, note.id, 3, "三", False),
        ("liked", third.id, liked.id, 1, None, False),
    ]
    assert items[0]["id"] > items[1]["id"] > first_id  # on top, as the newest arrival
    assert items[0]["blog"] == {"id": note.id, "title": "笔记"}
    assert _unread(user) == 2
    assert Notification.objects.filter(recipient=user).count() == 2


def test_once_read_the_next_comment_starts_a_new_item(user, other_user) -> None:
    note = BlogFactory(user=user)
    api = client_for(user)
    _comment(note, other_user, "一")
    _comment(note, other_user, "二")
    read_id = _inbox(user)[0]["id"]
    assert api.post("/api/notifications/read", {"ids": [read_id]}, format="json").json() == {
        "unread": 0
    }

    _comment(note, other_user, "三")
    assert _seen(user) == [
        ("commented", other_user.id, note.id, 1, "三", False),
        ("commented", other_user.id, note.id, 2, "二", True),
    ]
    assert _unread(user) == 1

    _comment(note, other_user, "四")  # folds into the new one only
    assert _seen(user) == [
        ("commented", other_user.id, note.id, 2, "四", False),
        ("commented", other_user.id, note.id, 2, "二", True),
    ]
    assert _inbox(user)[1]["id"] == read_id  # the read item stays where it was
    assert _unread(user) == 1
    assert api.post("/api/notifications/read", {"all": True}, format="json").json() == {"unread": 0}


def test_the_cap_is_per_commenter_and_recipient_and_an_hour_frees_it(
    user, other_user, settings, fake_clock
) -> None:
    settings.NOTIFICATIONS_COMMENTS_PER_HOUR = 3
    note = BlogFactory(user=user)
    chatty, friend = other_user, UserFactory()
    friends = _comment(note, friend, "朋友")  # 1

    for i in range(5):
        _comment(note, chatty, f"话{i}")  # the first 3 tell; 2 more post, telling nothing
    assert _seen(user) == [("commented", chatty.id, note.id, 4, "话2", False)]

    _comment(note, friend, "又来")  # another commenter's own cap
    _comment(note, chatty, "回复朋友", parent=friends)  # to another recipient
    assert _seen(user) == [("commented", friend.id, note.id, 5, "又来", False)]
    assert _seen(friend) == [("commented", chatty.id, note.id, 1, "回复朋友", False)]

    fake_clock.advance(3599)
    _comment(note, chatty, "还在窗口里")
    assert _seen(user)[0][1:4] == (friend.id, note.id, 5)
    fake_clock.advance(1)  # an hour after the first of the three
    _comment(note, chatty, "一小时后")
    assert _seen(user) == [("commented", chatty.id, note.id, 6, "一小时后", False)]
    assert BlogComment.objects.filter(blog=note).count() == 10  # every one posted


def test_no_cap_when_set_to_zero(user, other_user, settings) -> None:
    settings.NOTIFICATIONS_COMMENTS_PER_HOUR = 0
    note = BlogFactory(user=user)

    for i in range(25):
        _comment(note, other_user, f"{i}")

    assert _seen(user) == [("commented", other_user.id, note.id, 25, "24", False)]


def test_a_repeated_task_tells_nothing_and_uses_none_of_the_cap(user, other_user, settings) -> None:
    settings.NOTIFICATIONS_COMMENTS_PER_HOUR = 2
    note = BlogFactory(user=user)
    first = _comment(note, other_user, "一")

    for _ in range(3):
        assert producers.commented(comment_id=first.id) == 0
    _comment(note, other_user, "二")

    assert _seen(user) == [("commented", other_user.id, note.id, 2, "二", False)]


def test_taking_back_the_shown_comment_keeps_the_others(user, other_user) -> None:
    note = BlogFactory(user=user)
    friend = UserFactory()
    kept = _comment(note, friend, "真好吃")
    abusive = _comment(note, other_user, "滚")
    item_id = _inbox(user)[0]["id"]

    response = client_for(other_user).delete(f"/api/blogs/{note.id}/comments/{abusive.id}")

    assert response.status_code in (200, 204)
    assert _seen(user) == [("commented", friend.id, note.id, 1, "真好吃", False)]
    assert _inbox(user)[0]["id"] == item_id  # no new event: it stays where it was
    assert client_for(friend).delete(f"/api/blogs/{note.id}/comments/{kept.id}").status_code in (
        200,
        204,
    )
    assert _inbox(user) == []  # an item of one comment goes with it


def test_a_moderator_hiding_the_shown_comment_keeps_the_others(user, other_user) -> None:
    note = BlogFactory(user=user)
    friend = UserFactory()
    kept = _comment(note, friend, "真好吃")
    abusive = _comment(note, other_user, "滚")

    blogs.comment_hide(comment_id=abusive.id)

    assert _seen(user) == [("commented", friend.id, note.id, 1, "真好吃", False)]
    blogs.comment_hide(comment_id=kept.id)
    assert _inbox(user) == []


def test_a_deleted_thread_never_borrows_a_comment_another_item_shows(user, other_user) -> None:
    note = BlogFactory(user=user)
    friend = UserFactory()
    _comment(note, friend, "早")
    client_for(user).post("/api/notifications/read", {"all": True}, format="json")
    root = _comment(note, other_user, "一")
    _comment(note, other_user, "二", parent=root)
    assert [s[3:] for s in _seen(user)] == [(2, "二", False), (1, "早", True)]

    response = client_for(other_user).delete(f"/api/blogs/{note.id}/comments/{root.id}")

    assert response.status_code in (200, 204)
    assert _seen(user) == [("commented", friend.id, note.id, 1, "早", True)]


def test_racing_comments_and_mark_reads_lose_and_double_no_comment(user) -> None:
    """12 users comment on one note at once while the author marks everything read four
    times: every comment is counted once, in exactly one item, and at most one is unread."""
    note = BlogFactory(user=user)
    commenters = UserFactory.create_batch(12)
    author = client_for(user)

    def act(i: int) -> None:
        if i < 12:
            _comment(note, commenters[i], f"评论{i}")
        else:
            author.post("/api/notifications/read", {"all": True}, format="json")

    run_concurrently(act, workers=16)

    items = Notification.objects.filter(recipient=user, kind="commented")
    assert sum(items.values_list("count", flat=True)) == 12
    assert items.filter(read_at__isnull=True).count() <= 1
    assert _unread(user) == items.filter(read_at__isnull=True).count()
    shown = list(items.values_list("comment_id", flat=True))
    assert len(shown) == len(set(shown))
