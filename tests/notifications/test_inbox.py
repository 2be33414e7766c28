"""The inbox through the API: each social kind made by the real action, once per event;
scroll paging; the bound; unread count and mark-read; nobody else's inbox."""

from __future__ import annotations

import jsonschema
import pytest
from drf_spectacular.generators import SchemaGenerator

from notifications import services
from notifications.models import Kind, Notification
from tests.factories import BlogFactory, UserFactory
from tests.helpers import client_for


def _inbox(api) -> list[dict]:
    response = api.get("/api/notifications")
    assert response.status_code == 200
    return response.json()["results"]


def _unread(api) -> int:
    return api.get("/api/notifications/unread-count").json()["unread"]


def _add(recipient, n: int) -> list[int]:
    actor = UserFactory()
    made = [
        services.notification_add(
            recipient_id=recipient.id, kind=Kind.FOLLOWED, key=f"test:{i}", actor_id=actor.id
        )
        for i in range(n)
    ]
    return [m.id for m in made if m is not None]


@pytest.mark.django_db(transaction=True)  # notifications are enqueued after commit
def test_like_unlike_like_tells_the_author_once(user, other_user) -> None:
    note = BlogFactory(user=user, title="小杨生煎")
    liker = client_for(other_user)
    author = client_for(user)

    for method in ("post", "delete", "post"):
        assert getattr(liker, method)(f"/api/blogs/{note.id}/like").status_code == 200

    response = author.get("/api/notifications")
    items = response.json()["results"]
    assert [(n["kind"], n["blog"], n["read"]) for n in items] == [
        ("liked", {"id": note.id, "title": "小杨生煎"}, False)
    ]
    assert items[0]["actor"] == {
        "id": other_user.id,
        "nick_name": other_user.nick_name,
        "icon": other_user.icon,
    }
    assert response["Cache-Control"] == "no-store"  # personal JSON
    assert _unread(author) == 1
    assert _inbox(liker) == []  # the liker is told nothing


@pytest.mark.django_db(transaction=True)
def test_liking_your_own_note_tells_nobody(user) -> None:
    note = BlogFactory(user=user)
    author = client_for(user)

    assert author.post(f"/api/blogs/{note.id}/like").status_code == 200

    assert _inbox(author) == []
    assert not Notification.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_follow_tells_once_per_follower_however_often_they_come_back(user, other_user) -> None:
    follower = client_for(other_user)
    for method in ("put", "delete", "put", "put"):
        assert getattr(follower, method)(f"/api/follows/{user.id}").status_code == 200

    items = _inbox(client_for(user))

    assert [(n["kind"], n["actor"]["id"]) for n in items] == [("followed", other_user.id)]
    assert items[0]["blog"] is None
    assert items[0]["voucher"] is None


@pytest.mark.django_db(transaction=True)
def test_a_comment_tells_the_author_and_a_reply_the_parent_s_author_too(user, other_user) -> None:
    note = BlogFactory(user=user, title="鼎泰丰")
    third = UserFactory()
    author, commenter, replier = client_for(user), client_for(other_user), client_for(third)
    comment = commenter.post(f"/api/blogs/{note.id}/comments", {"content": "好吃吗"}, format="json")
    comment_id = comment.json()["id"]
    author.post(f"/api/blogs/{note.id}/comments", {"content": "我自己"}, format="json")  # self

    reply = replier.post(
        f"/api/blogs/{note.id}/comments",
        {"content": "好吃！", "parent_id": comment_id},
        format="json",
    ).json()

    to_author = _inbox(author)  # both comments, folded into one unread item (decision 285)
    assert [(n["kind"], n["actor"]["id"], n["comment"]["id"], n["count"]) for n in to_author] == [
        ("commented", third.id, reply["id"], 2),
    ]
    assert to_author[0]["blog"] == {"id": note.id, "title": "鼎泰丰"}
    assert to_author[0]["comment"]["content"] == "好吃！"
    to_commenter = _inbox(commenter)
    assert [(n["kind"], n["comment"]["id"], n["count"]) for n in to_commenter] == [
        ("commented", reply["id"], 1)
    ]
    assert _inbox(replier) == []


@pytest.mark.django_db(transaction=True)
def test_a_reply_to_the_author_s_own_comment_tells_them_once(user, other_user) -> None:
    note = BlogFactory(user=user)
    author = client_for(user)
    own = author.post(f"/api/blogs/{note.id}/comments", {"content": "欢迎"}, format="json")

    client_for(other_user).post(
        f"/api/blogs/{note.id}/comments",
        {"content": "谢谢", "parent_id": own.json()["id"]},
        format="json",
    )

    assert len(_inbox(author)) == 1


@pytest.mark.django_db
def test_scroll_pages_neither_skip_nor_repeat_while_new_ones_arrive(user, user_api) -> None:
    made = _add(user, 45)
    seen: list[int] = []
    params: dict[str, str] = {}
    for _ in range(10):
        page = user_api.get("/api/notifications", params).json()
        seen += [n["id"] for n in page["results"]]
        _add(user, 1)  # a new one arrives between pages: it belongs above the first page
        if page["last_id"] is None:
            break
        params = {"last_id": page["last_id"]}

    assert seen == sorted(made, reverse=True)
    assert len(seen) == 45


@pytest.mark.django_db
def test_the_inbox_keeps_the_newest(user, user_api, settings) -> None:
    settings.NOTIFICATIONS_MAX = 5
    made = _add(user, 8)

    assert [n["id"] for n in _inbox(user_api)] == sorted(made, reverse=True)[:5]
    assert Notification.objects.filter(recipient=user).count() == 5
    assert _unread(user_api) == 5


@pytest.mark.django_db
def test_mark_read_by_ids_then_all(user, user_api, other_user) -> None:
    mine = _add(user, 4)
    theirs = _add(other_user, 2)

    response = user_api.post("/api/notifications/read", {"ids": [mine[0], *theirs]}, format="json")

    assert response.json() == {"unread": 3}
    assert [n["read"] for n in _inbox(user_api)] == [False, False, False, True]
    assert _unread(client_for(other_user)) == 2  # someone else's ids changed nothing
    assert user_api.post("/api/notifications/read", {"all": True}, format="json").json() == {
        "unread": 0
    }
    assert _unread(client_for(other_user)) == 2
    assert user_api.post("/api/notifications/read", {"all": True}, format="json").json() == {
        "unread": 0
    }  # idempotent


@pytest.mark.django_db
def test_another_user_sees_none_of_mine(user, other_user) -> None:
    _add(user, 3)

    other = client_for(other_user)

    assert _inbox(other) == []
    assert _unread(other) == 0
    assert other.post("/api/notifications/read", {"all": True}, format="json").status_code == 200
    assert Notification.objects.filter(recipient=user, read_at__isnull=True).count() == 3


@pytest.mark.django_db
@pytest.mark.parametrize(
    "body",
    [{}, {"all": False}, {"ids": [1], "all": True}, {"ids": "1"}, {"ids": ["1"]}, {"ids": [0]}],
)
def test_mark_read_needs_ids_or_all(user, user_api, body) -> None:
    _add(user, 1)

    response = user_api.post("/api/notifications/read", body, format="json")

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert _unread(user_api) == 1


@pytest.fixture(scope="module")
def mark_read_body_schema() -> jsonschema.Draft4Validator:
    """The request body `POST /api/notifications/read` publishes, as a validator."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    content = schema["paths"]["/api/notifications/read"]["post"]["requestBody"]["content"]
    body = content["application/json"]["schema"]
    return jsonschema.Draft4Validator({**body, "components": schema["components"]})


@pytest.mark.django_db
@pytest.mark.parametrize(
    "body",
    [
        {"ids": [], "all": True},  # schemathesis's ST202: the schema admitted it
        {"ids": [1], "all": True},
        {"ids": [1], "all": False},
        {"ids": []},
        {"ids": [1]},
        {"all": True},
        {"all": False},
        {},
    ],
)
def test_the_schema_admits_exactly_the_bodies_mark_read_takes(
    user, user_api, mark_read_body_schema, body
) -> None:
    _add(user, 1)

    response = user_api.post("/api/notifications/read", body, format="json")

    assert response.status_code in (200, 400)
    assert mark_read_body_schema.is_valid(body) == (response.status_code == 200)


@pytest.mark.django_db
def test_mark_read_without_a_body_is_refused_and_the_schema_requires_one(user_api) -> None:
    schema = SchemaGenerator().get_schema(request=None, public=True)

    response = user_api.post("/api/notifications/read")

    assert response.status_code == 400
    assert schema["paths"]["/api/notifications/read"]["post"]["requestBody"]["required"] is True


@pytest.mark.django_db
def test_the_inbox_needs_a_login(api) -> None:
    assert api.get("/api/notifications").status_code == 401
    assert api.get("/api/notifications/unread-count").status_code == 401
    assert api.post("/api/notifications/read", {"all": True}, format="json").status_code == 401
    assert api.get("/api/notifications?last_id=abc").status_code == 401


@pytest.mark.django_db
def test_a_bad_last_id_is_a_400(user_api) -> None:
    assert user_api.get("/api/notifications?last_id=abc").status_code == 400
    assert user_api.get("/api/notifications?last_id=9223372036854775808").status_code == 400


@pytest.mark.django_db(transaction=True)
def test_a_deleted_note_takes_its_notifications(user, other_user) -> None:
    note = BlogFactory(user=user)
    client_for(other_user).post(f"/api/blogs/{note.id}/like")
    assert len(_inbox(client_for(user))) == 1

    assert client_for(user).delete(f"/api/blogs/{note.id}").status_code == 204

    assert _inbox(client_for(user)) == []


@pytest.mark.django_db(transaction=True)
def test_hiding_a_note_or_comment_drops_what_was_said_about_it(user, other_user) -> None:
    from blogs import services as blogs

    note = BlogFactory(user=user)
    client_for(other_user).post(f"/api/blogs/{note.id}/like")
    path = f"/api/blogs/{note.id}/comments"
    mine = client_for(user).post(path, {"content": "我的"}, format="json").json()
    reply = {"content": "回复", "parent_id": mine["id"]}
    client_for(other_user).post(path, reply, format="json")
    assert sorted(n["kind"] for n in _inbox(client_for(user))) == ["commented", "liked"]

    blogs.blog_hide(blog_id=note.id)

    assert _inbox(client_for(user)) == []


@pytest.mark.django_db(transaction=True)
def test_a_like_or_comment_told_after_its_note_was_hidden_tells_nobody(user, other_user) -> None:
    # The task runs after the request: a moderator may have hidden the note in between.
    from blogs import services as blogs
    from notifications import producers

    note = BlogFactory(user=user)
    client_for(other_user).post(f"/api/blogs/{note.id}/like")
    comment = blogs.comment_create(blog_id=note.id, user_id=other_user.id, content="c")
    Notification.objects.all().delete()
    blogs.blog_hide(blog_id=note.id)

    assert producers.liked(blog_id=note.id, liker_id=other_user.id) is False
    assert producers.commented(comment_id=comment.id) == 0
    assert not Notification.objects.exists()
