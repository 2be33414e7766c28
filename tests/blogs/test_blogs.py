"""Blog and comment API: ownership, validation, what clients may and may not set."""

from __future__ import annotations

import pytest

from blogs import keys, likes
from blogs.models import Blog, BlogComment
from tests.factories import BlogFactory, ShopFactory
from tests.helpers import client_for


@pytest.mark.django_db
def test_publish_then_read_with_author_and_like_state(user, user_api, api) -> None:
    shop = ShopFactory()
    response = user_api.post(
        "/api/blogs",
        {
            "title": "Soup dumplings",
            "content": "Juicy.",
            "images": ["https://img.example/1.jpg"],
            "shop_id": shop.id,
        },
        format="json",
    )

    assert response.status_code == 201
    body = response.json()
    assert body["user"] == {"id": user.id, "nick_name": user.nick_name, "icon": user.icon}
    assert (body["shop_id"], body["liked"], body["is_liked"]) == (shop.id, 0, False)
    assert api.get(f"/api/blogs/{body['id']}").json()["title"] == "Soup dumplings"
    assert api.get("/api/blogs/424242").status_code == 404


@pytest.mark.django_db
def test_anonymous_callers_cannot_write(api) -> None:
    blog = BlogFactory()

    assert api.post("/api/blogs", {"title": "t", "content": "c"}, format="json").status_code == 401
    assert api.delete(f"/api/blogs/{blog.id}/like").status_code == 401
    assert api.get("/api/blogs/mine").status_code == 401
    assert Blog.objects.count() == 1


@pytest.mark.django_db
def test_a_client_cannot_set_author_likes_or_comment_count(user, other_user, user_api) -> None:
    response = user_api.post(
        "/api/blogs",
        {
            "title": "t",
            "content": "c",
            "user": other_user.id,
            "user_id": other_user.id,
            "liked": 999,
            "comments": 50,
        },
        format="json",
    )

    blog = Blog.objects.get(pk=response.json()["id"])
    assert (blog.user_id, blog.liked, blog.comments) == (user.id, 0, 0)
    user_api.patch(f"/api/blogs/{blog.id}", {"liked": 7, "user": other_user.id}, format="json")
    blog.refresh_from_db()
    assert (blog.user_id, blog.liked) == (user.id, 0)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "payload",
    [
        {"title": "", "content": "c"},
        {"content": "no title"},
        {"title": "t", "content": "c", "images": ["not a url"]},
        {"title": "x" * 129, "content": "c"},
        {"title": "t", "content": 0},
        {"title": "t", "content": "c", "shop_id": 1.5},
        {"title": "t", "content": "c", "shop_id": "1"},
        {"title": "gpj.\u202eexe", "content": "c"},
        {"title": "t", "content": "c", "images": ["//evil.example/x.png"]},
    ],
)
def test_bad_input_is_400_and_creates_nothing(user_api, payload) -> None:
    response = user_api.post("/api/blogs", payload, format="json")

    assert response.status_code == 400
    assert "errors" in response.json()
    assert not Blog.objects.exists()


@pytest.mark.django_db
def test_a_note_about_a_shop_that_does_not_exist_is_409_and_creates_nothing(user_api) -> None:
    body = {"title": "t", "content": "c", "shop_id": 424242}

    response = user_api.post("/api/blogs", body, format="json")

    assert (response.status_code, response.json()["code"]) == (409, "shop_not_found")
    assert not Blog.objects.exists()


@pytest.mark.django_db(transaction=True)  # the after-commit cleanups run, or must not
def test_only_the_author_may_edit_or_delete(user, other_user, user_api, api, redis_client) -> None:
    blog = BlogFactory(user=user, title="Mine")
    likes.blog_like(blog_id=blog.id, user_id=other_user.id)
    stranger = client_for(other_user)

    assert api.patch(f"/api/blogs/{blog.id}", {"title": "x"}, format="json").status_code == 401
    assert stranger.patch(f"/api/blogs/{blog.id}", {"title": "x"}, format="json").status_code == 403
    assert stranger.delete(f"/api/blogs/{blog.id}").status_code == 403
    assert api.delete(f"/api/blogs/{blog.id}").status_code == 401
    assert user_api.patch("/api/blogs/424242", {"title": "x"}, format="json").status_code == 404
    assert user_api.delete("/api/blogs/424242").status_code == 404
    assert Blog.objects.get(pk=blog.pk).title == "Mine"
    assert redis_client.zcard(keys.blog_likes(blog.id)) == 1  # refused: likes untouched
    assert not redis_client.exists(keys.user_blog_version(user.id))  # nor pages marked stale

    assert (
        user_api.patch(f"/api/blogs/{blog.id}", {"title": "Ours"}, format="json").json()["title"]
        == "Ours"
    )
    assert user_api.delete(f"/api/blogs/{blog.id}").status_code == 204
    assert not Blog.objects.filter(pk=blog.pk).exists()
    assert not redis_client.exists(keys.blog_likes(blog.id), keys.blog_likes_version(blog.id))


@pytest.mark.django_db
def test_comments_count_and_list_and_reject_foreign_parents(user, user_api, api) -> None:
    blog, other_blog = BlogFactory(), BlogFactory()
    foreign = BlogComment.objects.create(blog=other_blog, user=user, content="elsewhere")

    first = user_api.post(f"/api/blogs/{blog.id}/comments", {"content": "Nice"}, format="json")
    reply = user_api.post(
        f"/api/blogs/{blog.id}/comments",
        {"content": "Agreed", "parent_id": first.json()["id"]},
        format="json",
    )
    bad_parent = user_api.post(
        f"/api/blogs/{blog.id}/comments", {"content": "x", "parent_id": foreign.id}, format="json"
    )

    assert (first.status_code, reply.status_code, bad_parent.status_code) == (201, 201, 409)
    assert bad_parent.json()["code"] == "parent_not_found"
    assert api.post(f"/api/blogs/{blog.id}/comments", {"content": "x"}).status_code == 401
    missing = user_api.post("/api/blogs/424242/comments", {"content": "x"}, format="json")
    assert missing.status_code == 404
    listed = api.get(f"/api/blogs/{blog.id}/comments").json()
    assert [c["content"] for c in listed["results"]] == ["Nice", "Agreed"]
    assert listed["results"][1]["parent_id"] == first.json()["id"]
    assert Blog.objects.get(pk=blog.pk).comments == 2
    assert api.get("/api/blogs/424242/comments").status_code == 404


@pytest.mark.django_db
def test_hot_list_orders_by_likes_then_newest(api) -> None:
    low, high, tie = BlogFactory(liked=1), BlogFactory(liked=9), BlogFactory(liked=1)

    results = api.get("/api/blogs/hot").json()["results"]

    assert [b["id"] for b in results] == [high.id, tie.id, low.id]
    assert results[0]["user"]["id"] == high.user_id
    assert api.get("/api/blogs/hot?page=zero").status_code == 400


@pytest.mark.django_db
def test_hot_list_far_past_the_end_is_empty(api) -> None:
    """A page whose offset overflows a database's OFFSET (the probe's 2^63 - 1 page on
    MariaDB answered 500) is an empty page, not a query."""
    BlogFactory()

    response = api.get("/api/blogs/hot?page=9223372036854775807&page_size=50")

    assert response.status_code == 200
    assert response.json()["results"] == []
    assert response.json()["count"] == 1
