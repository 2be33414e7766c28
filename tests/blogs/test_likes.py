"""Likes against real Redis with real threads: the DB count never drifts from the set."""

from __future__ import annotations

import random

import pytest

from blogs import keys, likes
from blogs.models import Blog
from tests.factories import BlogFactory, ShopFactory, UserFactory
from tests.helpers import client_for, run_concurrently


@pytest.mark.django_db
def test_like_and_unlike_are_idempotent(user, user_api, api, redis_client) -> None:
    blog = BlogFactory()
    url = f"/api/blogs/{blog.id}/like"

    assert user_api.post(url).json() == {"is_liked": True, "liked": 1}
    assert user_api.post(url).json() == {"is_liked": True, "liked": 1}
    assert user_api.get(f"/api/blogs/{blog.id}").json()["is_liked"] is True
    assert Blog.objects.get(pk=blog.pk).liked == 1

    assert user_api.delete(url).json() == {"is_liked": False, "liked": 0}
    assert user_api.delete(url).json() == {"is_liked": False, "liked": 0}
    assert Blog.objects.get(pk=blog.pk).liked == 0
    assert api.post(url).status_code == 401
    assert user_api.post("/api/blogs/424242/like").status_code == 404
    assert not redis_client.exists(keys.blog_likes(424242))  # refused before Redis
    assert redis_client.zcard(keys.blog_likes(blog.id)) == 0


@pytest.mark.django_db(transaction=True)
def test_fifty_threads_liking_and_unliking_leave_no_drift(redis_client) -> None:
    blog = BlogFactory()
    users = UserFactory.create_batch(50)

    def churn(i: int) -> None:
        rng = random.Random(i)
        for _ in range(6):
            change = likes.blog_like if rng.random() < 0.6 else likes.blog_unlike
            change(blog_id=blog.id, user_id=users[i].id)

    run_concurrently(churn, 50)

    members = redis_client.zcard(keys.blog_likes(blog.id))
    assert 0 < members < 50  # both likes and unlikes happened
    assert Blog.objects.get(pk=blog.pk).liked == members


@pytest.mark.django_db
def test_top_likers_are_the_first_five_in_like_order(api, fake_clock) -> None:
    blog = BlogFactory()
    users = UserFactory.create_batch(7)
    order = [users[i] for i in (3, 0, 6, 1, 5, 2, 4)]
    for liker in order:
        client_for(liker).post(f"/api/blogs/{blog.id}/like")
        fake_clock.advance(1)

    top = api.get(f"/api/blogs/{blog.id}/likes").json()

    assert [u["id"] for u in top] == [u.id for u in order[:5]]
    assert set(top[0]) == {"id", "nick_name", "icon"}
    assert api.get("/api/blogs/424242/likes").status_code == 404


@pytest.mark.django_db
def test_top_likers_take_one_query(api, django_assert_num_queries) -> None:
    blog = BlogFactory()
    for liker in UserFactory.create_batch(5):
        likes.blog_like(blog_id=blog.id, user_id=liker.id)

    with django_assert_num_queries(2):  # the blog's existence, then the likers
        assert len(likes.top_likers(blog_id=blog.id)) == 5


@pytest.mark.django_db
def test_a_first_like_of_a_review_takes_two_queries(django_assert_num_queries) -> None:
    """The note's one read answers the 404 and tells its receivers ("guess you like") the
    shop it is about; then the count's guarded write. Nothing per receiver."""
    review = BlogFactory(shop=ShopFactory())
    liker = UserFactory()

    with django_assert_num_queries(2):
        assert likes.blog_like(blog_id=review.id, user_id=liker.id)["liked"] == 1


@pytest.mark.django_db
def test_a_count_older_than_the_stored_one_is_never_written(redis_client) -> None:
    """The version guard, deterministically: a like whose script ran before a newer
    count was stored (a slow or retried write) must not overwrite it."""
    blog = BlogFactory()
    likes.blog_like(blog_id=blog.id, user_id=UserFactory().id)  # count 1 at version v
    Blog.objects.filter(pk=blog.id).update(liked=7, liked_version=10**15)  # a newer write

    likes.blog_like(blog_id=blog.id, user_id=UserFactory().id)

    assert Blog.objects.values_list("liked", flat=True).get(pk=blog.id) == 7


@pytest.mark.django_db
def test_a_like_that_lands_after_its_blog_was_deleted_leaves_no_keys(
    redis_client, monkeypatch
) -> None:
    blog = BlogFactory()
    blog_id = blog.id
    blog.delete()
    monkeypatch.setattr(likes, "blog_shop", lambda **_: None)  # it passed just before

    likes.blog_like(blog_id=blog_id, user_id=UserFactory().id)

    assert not redis_client.exists(keys.blog_likes(blog_id), keys.blog_likes_version(blog_id))
