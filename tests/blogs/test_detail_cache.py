"""Blog details come from a cache with a random TTL (seed 002 §1), evicted after every
committed change (edit, delete, comment, the author's new name, admin), while the like
count and `is_liked` are read live."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.services import user_update_profile
from blogs.caches import blog_cache, like_count_cache
from tests.factories import BlogFactory, UserFactory
from tests.helpers import client_for, count_round_trips, warm_near_cache

pytestmark = pytest.mark.django_db(transaction=True)  # evictions run after commit


def _read(api, blog_id: int):
    response = api.get(f"/api/blogs/{blog_id}")
    assert response.status_code == 200
    return response.json()


def test_a_second_read_needs_no_database_and_the_ttl_is_jittered(api, redis_client) -> None:
    blogs = BlogFactory.create_batch(20)
    for blog in blogs:
        _read(api, blog.id)

    with CaptureQueriesContext(connection) as queries:
        again = _read(api, blogs[0].id)
    assert len(queries) == 0  # served from Redis
    assert again["title"] == blogs[0].title
    ttls = [redis_client.ttl(blog_cache().key(b.id)) for b in blogs]
    low, high = settings.BLOG_CACHE_TTL, settings.BLOG_CACHE_TTL * (1 + settings.BLOG_CACHE_JITTER)
    assert all(low - 5 <= ttl <= high for ttl in ttls)
    assert len(set(ttls)) > 5  # random: written together, they do not expire together


def test_likes_are_live_on_a_cached_detail(user, user_api, api) -> None:
    blog = BlogFactory()
    assert _read(user_api, blog.id)["liked"] == 0  # cached now

    user_api.post(f"/api/blogs/{blog.id}/like")

    mine = _read(user_api, blog.id)
    assert (mine["liked"], mine["is_liked"]) == (1, True)
    theirs = _read(api, blog.id)
    assert (theirs["liked"], theirs["is_liked"]) == (1, False)


def test_an_edit_a_comment_and_a_delete_are_seen_at_once(user, user_api, api) -> None:
    blog = BlogFactory(user=user, title="before")
    _read(api, blog.id)

    user_api.patch(f"/api/blogs/{blog.id}", {"title": "after"}, format="json")
    assert _read(api, blog.id)["title"] == "after"

    user_api.post(f"/api/blogs/{blog.id}/comments", {"content": "nice"}, format="json")
    assert _read(api, blog.id)["comments"] == 1

    user_api.delete(f"/api/blogs/{blog.id}")
    assert api.get(f"/api/blogs/{blog.id}").status_code == 404


def test_a_refused_edit_leaves_the_cached_detail_alone(user, other_user, api, redis_client) -> None:
    blog = BlogFactory(user=user, title="mine")
    _read(api, blog.id)

    refused = client_for(other_user).patch(f"/api/blogs/{blog.id}", {"title": "x"}, format="json")

    assert refused.status_code == 403
    assert redis_client.exists(blog_cache().key(blog.id))  # not evicted for nothing
    assert _read(api, blog.id)["title"] == "mine"


def test_the_author_s_new_name_reaches_cached_details(user, api) -> None:
    blog = BlogFactory(user=user)
    _read(api, blog.id)

    user_update_profile(user_id=user.id, nick_name="Xiao Hong")

    assert _read(api, blog.id)["user"]["nick_name"] == "Xiao Hong"


def test_an_unknown_blog_is_remembered_briefly(api, redis_client) -> None:
    assert api.get("/api/blogs/987654321").status_code == 404

    assert redis_client.get(blog_cache().key(987654321)) == b""  # the null marker
    assert 0 < redis_client.ttl(blog_cache().key(987654321)) <= settings.BLOG_CACHE_NULL_TTL


def test_admin_edits_and_deletes_evict_cached_details(user, api, client) -> None:
    kept, deleted = BlogFactory(user=user), BlogFactory(user=user)
    _read(api, kept.id)
    _read(api, deleted.id)
    client.force_login(UserFactory(is_staff=True, is_superuser=True))

    client.post(
        f"/admin/blogs/blog/{kept.id}/change/",
        {"user": user.id, "shop": "", "title": "moderated", "images": "[]", "content": "ok"},
    )
    client.post(
        "/admin/blogs/blog/",
        {"action": "delete_selected", "_selected_action": [deleted.id], "post": "yes"},
    )

    assert _read(api, kept.id)["title"] == "moderated"
    assert api.get(f"/api/blogs/{deleted.id}").status_code == 404


def test_a_new_blog_is_not_hidden_by_a_miss_cached_before_it_existed(user, user_api, api) -> None:
    earlier = BlogFactory(user=user)
    next_id = earlier.id + 1
    assert api.get(f"/api/blogs/{next_id}").status_code == 404  # "no such blog", cached

    created = user_api.post("/api/blogs", {"title": "new", "content": "c"}, format="json")

    assert created.json()["id"] == next_id
    assert _read(api, next_id)["title"] == "new"


def test_blogs_deleted_with_their_author_leave_the_cache_too(user, api) -> None:
    blog = BlogFactory(user=user)
    _read(api, blog.id)

    user.delete()  # the blogs go in a cascade, past every service

    assert api.get(f"/api/blogs/{blog.id}").status_code == 404


def test_a_cached_detail_with_live_likes_costs_one_round_trip(user, user_api, monkeypatch) -> None:
    blog = BlogFactory()
    user_api.post(f"/api/blogs/{blog.id}/like")
    _read(user_api, blog.id)  # cached in Redis, the token seen by this process
    warm_near_cache(blog_cache(), blog.id, lambda: None)  # and held by the process
    warm_near_cache(like_count_cache(), blog.id, lambda: None)  # its like count too
    round_trips = count_round_trips(monkeypatch)

    body = _read(user_api, blog.id)

    # The token's refresh and the caller's like share one pipeline, the entry and the
    # count are the process's own copies: one batch per server (on a Cluster, per node
    # holding a key).
    assert (body["id"], body["liked"], body["is_liked"]) == (blog.id, 1, True)
    assert len(round_trips) == len(set(round_trips)) >= 1
    if not settings.REDIS_CLUSTER:
        assert len(round_trips) == 1
