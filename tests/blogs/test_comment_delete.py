"""Deleting one's own comment: author only, its replies go with it, the note's count
follows exactly, and the cached note detail is evicted."""

from __future__ import annotations

import pytest

from blogs import services
from blogs.models import Blog, BlogComment
from tests.factories import BlogFactory, UserFactory
from tests.helpers import client_for, run_concurrently

pytestmark = pytest.mark.django_db(transaction=True)  # evictions run after commit


def _comment(api, blog_id: int, content: str = "c", parent: int | None = None) -> int:
    body = {"content": content} if parent is None else {"content": content, "parent_id": parent}
    response = api.post(f"/api/blogs/{blog_id}/comments", body, format="json")
    assert response.status_code == 201
    return response.json()["id"]


def test_the_author_deletes_and_the_cached_count_follows(user, user_api, api) -> None:
    blog = BlogFactory()
    mine = _comment(user_api, blog.id, "mine")
    _comment(client_for(UserFactory()), blog.id, "theirs")
    assert api.get(f"/api/blogs/{blog.id}").json()["comments"] == 2  # cached now

    response = user_api.delete(f"/api/blogs/{blog.id}/comments/{mine}")

    assert response.status_code == 204
    assert api.get(f"/api/blogs/{blog.id}").json()["comments"] == 1
    listed = api.get(f"/api/blogs/{blog.id}/comments").json()["results"]
    assert [c["content"] for c in listed] == ["theirs"]
    assert user_api.delete(f"/api/blogs/{blog.id}/comments/{mine}").status_code == 404


def test_others_are_refused_and_nothing_changes(user, user_api, api) -> None:
    blog = BlogFactory(user=user)  # even the note's author may not delete others' words
    theirs = _comment(client_for(UserFactory()), blog.id)

    forbidden = user_api.delete(f"/api/blogs/{blog.id}/comments/{theirs}")

    assert (forbidden.status_code, forbidden.json()["code"]) == (403, "not_commenter")
    assert api.delete(f"/api/blogs/{blog.id}/comments/{theirs}").status_code == 401
    assert user_api.delete(f"/api/blogs/{blog.id}/comments/987654").status_code == 404
    other_blog = BlogFactory()
    assert user_api.delete(f"/api/blogs/{other_blog.id}/comments/{theirs}").status_code == 404
    assert user_api.delete(f"/api/blogs/987654/comments/{theirs}").status_code == 404
    assert BlogComment.objects.filter(pk=theirs).exists()
    assert Blog.objects.get(pk=blog.pk).comments == 1


def test_replies_go_with_the_comment_and_leave_the_count(user, user_api, api) -> None:
    blog = BlogFactory()
    other = client_for(UserFactory())
    root = _comment(user_api, blog.id, "root")
    reply = _comment(other, blog.id, "reply", parent=root)
    _comment(user_api, blog.id, "reply to reply", parent=reply)
    hidden = _comment(other, blog.id, "hidden reply", parent=root)
    services.comment_hide(comment_id=hidden)  # already out of the count
    kept = _comment(other, blog.id, "elsewhere")
    assert Blog.objects.get(pk=blog.pk).comments == 4

    assert user_api.delete(f"/api/blogs/{blog.id}/comments/{root}").status_code == 204

    assert list(BlogComment.objects.filter(blog=blog).values_list("id", flat=True)) == [kept]
    assert Blog.objects.get(pk=blog.pk).comments == 1
    assert api.get(f"/api/blogs/{blog.id}").json()["comments"] == 1


def test_many_threads_create_and_delete_comments_on_one_note() -> None:
    """On MariaDB each writer locks the note's row first, so none deadlocks (no 500), and
    the count equals the rows whatever the interleaving."""
    blog = BlogFactory()
    users = [UserFactory() for _ in range(16)]
    apis = [client_for(u) for u in users]
    seeded = [
        BlogComment.objects.create(blog=blog, user=users[i], content=f"old {i}").id
        for i in range(0, 16, 2)
    ]
    Blog.objects.filter(pk=blog.pk).update(comments=len(seeded))

    def write(i: int) -> list[int]:
        path = f"/api/blogs/{blog.id}/comments"
        if i % 2 == 0:  # delete their old comment, then write and delete a new one
            codes = [apis[i].delete(f"{path}/{seeded[i // 2]}").status_code]
            new = apis[i].post(path, {"content": "n"}, format="json")
            codes += [new.status_code, apis[i].delete(f"{path}/{new.json()['id']}").status_code]
            return codes
        return [
            apis[i].post(path, {"content": f"c{j}"}, format="json").status_code for j in range(3)
        ]

    results = run_concurrently(write, workers=16)

    assert all(codes in ([204, 201, 204], [201, 201, 201]) for codes in results), results
    rows = BlogComment.objects.filter(blog=blog).count()
    assert rows == 8 * 3
    assert Blog.objects.get(pk=blog.pk).comments == rows


@pytest.mark.django_db(transaction=True)
def test_no_reply_to_a_hidden_comment(user_api, other_user) -> None:
    note = BlogFactory()
    hidden = services.comment_create(blog_id=note.id, user_id=other_user.id, content="c")
    services.comment_hide(comment_id=hidden.id)

    response = user_api.post(
        f"/api/blogs/{note.id}/comments", {"content": "r", "parent_id": hidden.id}, format="json"
    )

    assert (response.status_code, response.json()["code"]) == (409, "parent_not_found")
