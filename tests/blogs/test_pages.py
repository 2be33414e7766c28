"""Per-page cached user pages (seed 002): lazy build, TTL renewed on hits, rebuild after
changes, and no interleaving that leaves a stale page in the cache."""

from __future__ import annotations

import json
import threading
from datetime import timedelta

import pytest

from blogs import keys, likes, pages, services
from blogs.models import Blog
from tests.factories import BlogFactory, UserFactory
from toolkit import clock
from toolkit.redis import keys as toolkit_keys


def _blogs_of(user, count: int) -> list[Blog]:
    start = clock.now() - timedelta(days=1)
    return [
        BlogFactory(user=user, title=f"post {i}", created_at=start + timedelta(minutes=i))
        for i in range(count)
    ]


@pytest.mark.django_db
def test_pages_are_built_on_first_read_and_served_from_cache(user, api, redis_client) -> None:
    _blogs_of(user, 25)
    url = f"/api/users/{user.id}/blogs"

    first = api.get(url, {"page": 2}).json()

    assert first["count"] == 25
    assert [b["title"] for b in first["results"]] == [f"post {i}" for i in range(14, 4, -1)]
    assert first["next"].endswith("page=3")
    assert first["previous"].endswith("/blogs")
    assert redis_client.exists(keys.user_blog_page(user.id, 2))
    assert not redis_client.exists(keys.user_blog_page(user.id, 1))  # only what was read
    # A write behind the services' back is invisible: the page came from the cache.
    Blog.objects.filter(user=user).update(title="changed")
    assert api.get(url, {"page": 2}).json()["results"][0]["title"] == "post 14"


@pytest.mark.django_db
def test_a_hit_renews_the_ttl(user, api, redis_client, settings) -> None:
    _blogs_of(user, 3)
    api.get(f"/api/users/{user.id}/blogs")
    key = keys.user_blog_page(user.id, 1)
    redis_client.expire(key, 5)

    redis_client.expire(keys.user_blog_pages(user.id), 5)

    api.get(f"/api/users/{user.id}/blogs")

    assert redis_client.ttl(key) >= settings.BLOG_PAGE_TTL - 1
    # The index the rebuild walks lives as long as the pages it lists.
    assert redis_client.ttl(keys.user_blog_pages(user.id)) >= redis_client.ttl(key)


@pytest.mark.django_db
def test_a_page_built_before_the_latest_change_is_a_miss_even_without_a_rebuild(user, api) -> None:
    (blog,) = _blogs_of(user, 1)
    api.get(f"/api/users/{user.id}/blogs")
    Blog.objects.filter(pk=blog.pk).update(title="changed")
    pages.user_blogs_changed(user.id)  # the change committed; its rebuild task was lost

    assert api.get(f"/api/users/{user.id}/blogs").json()["results"][0]["title"] == "changed"


@pytest.mark.django_db
def test_past_the_end_is_empty_and_caches_nothing(user, api, redis_client) -> None:
    _blogs_of(user, 3)

    body = api.get(f"/api/users/{user.id}/blogs", {"page": 5}).json()

    assert (body["count"], body["results"], body["next"]) == (3, [], None)
    assert not redis_client.exists(keys.user_blog_page(user.id, 5))


@pytest.mark.django_db
def test_bad_requests(user, api) -> None:
    assert api.get("/api/users/424242/blogs").status_code == 404
    assert api.get(f"/api/users/{user.id}/blogs", {"page": "0"}).status_code == 400
    assert api.get(f"/api/users/{user.id}/blogs", {"page": "x"}).status_code == 400
    assert api.get("/api/blogs/mine").status_code == 401


@pytest.mark.django_db(transaction=True)
def test_cached_pages_are_rebuilt_after_publish_edit_and_delete(
    user, user_api, redis_client
) -> None:
    old = _blogs_of(user, 12)
    for page in (1, 2):
        user_api.get("/api/blogs/mine", {"page": page})

    created = user_api.post("/api/blogs", {"title": "fresh", "content": "c"}, format="json")
    page_one = user_api.get("/api/blogs/mine").json()
    assert page_one["count"] == 13
    assert page_one["results"][0]["title"] == "fresh"
    assert user_api.get("/api/blogs/mine", {"page": 2}).json()["results"][0]["title"] == "post 2"

    user_api.patch(f"/api/blogs/{old[11].id}", {"title": "edited"}, format="json")
    assert user_api.get("/api/blogs/mine").json()["results"][1]["title"] == "edited"

    user_api.delete(f"/api/blogs/{created.json()['id']}")
    # The rebuild task rewrote both cached pages at the latest version, before any read.
    version = redis_client.get(keys.user_blog_version(user.id))
    for page, first_title in ((1, "edited"), (2, "post 1")):
        cached = redis_client.hgetall(keys.user_blog_page(user.id, page))
        assert cached[b"v"] == version
        assert json.loads(cached[b"data"])[0]["title"] == first_title
    assert user_api.get("/api/blogs/mine").json()["results"][0]["title"] == "edited"


@pytest.mark.django_db
def test_like_counts_on_cached_pages_are_live(user, user_api) -> None:
    (blog,) = _blogs_of(user, 1)
    assert user_api.get("/api/blogs/mine").json()["results"][0]["liked"] == 0

    user_api.post(f"/api/blogs/{blog.id}/like")

    item = user_api.get("/api/blogs/mine").json()["results"][0]
    assert (item["liked"], item["is_liked"]) == (1, True)


class _PausedReader:
    """A page reader stopped right after its database read, until released."""

    def __init__(self, monkeypatch) -> None:
        self.loaded, self.release = threading.Event(), threading.Event()
        real_load = pages.page_load
        reader = self

        def load(user_id: int, page: int):
            items = real_load(user_id, page)
            if threading.current_thread().name == "reader":
                reader.loaded.set()
                assert reader.release.wait(10)
            return items

        monkeypatch.setattr(pages, "page_load", load)

    def start(self, user_id: int) -> threading.Thread:
        def read() -> None:
            from django.db import connection

            try:
                pages.user_blogs_page(user_id=user_id, page=1)
            finally:
                connection.close()

        thread = threading.Thread(target=read, name="reader")
        thread.start()
        assert self.loaded.wait(10)
        return thread


@pytest.mark.django_db(transaction=True)
def test_a_reader_that_loaded_before_an_edit_never_stores_its_stale_page(
    user, redis_client, monkeypatch
) -> None:
    """Reader loads the old page; its lock lease runs out (a slow reader); the author
    edits; another reader and the rebuild store the new page; then the first reader
    finishes. The forced interleaving must leave the new page in the cache."""
    (blog,) = _blogs_of(user, 1)
    paused = _PausedReader(monkeypatch)
    reader = paused.start(user.id)  # holds the old title in hand
    redis_client.delete(toolkit_keys.lock(f"blog-page:{user.id}:1"))  # its lease expired

    services.blog_update(blog_id=blog.id, user_id=user.id, data={"title": "new"})
    pages.user_blogs_page(user_id=user.id, page=1)  # another reader caches the new page
    pages.user_pages_rebuild(user.id)  # the rebuild writes the new page again
    paused.release.set()
    reader.join(10)

    _, items = pages.user_blogs_page(user_id=user.id, page=1)
    assert items[0]["title"] == "new"
    assert b'"new"' in redis_client.hget(keys.user_blog_page(user.id, 1), "data")


@pytest.mark.django_db(transaction=True)
def test_the_rebuild_waits_for_a_reader_holding_the_page_lock(
    user, redis_client, monkeypatch
) -> None:
    (blog,) = _blogs_of(user, 1)
    pages.user_blogs_page(user_id=user.id, page=1)
    redis_client.delete(keys.user_blog_page(user.id, 1))  # expired: the next reader rebuilds
    paused = _PausedReader(monkeypatch)
    reader = paused.start(user.id)  # holds the page lock, the old title in hand

    Blog.objects.filter(pk=blog.pk).update(title="new")
    pages.user_blogs_changed(user.id)  # committed; the rebuild runs on its own thread
    rebuild = threading.Thread(target=pages.user_pages_rebuild, args=(user.id,))
    rebuild.start()
    rebuild.join(0.5)
    assert rebuild.is_alive()  # blocked on the reader's page lock
    paused.release.set()
    reader.join(10)
    rebuild.join(15)

    assert not rebuild.is_alive()
    assert not redis_client.exists(keys.user_blog_page(user.id, 1))  # the old page never landed
    assert pages.user_blogs_page(user_id=user.id, page=1)[1][0]["title"] == "new"


@pytest.mark.django_db(transaction=True)
def test_an_admin_edit_rebuilds_the_cached_pages_too(user, api, client) -> None:
    (blog,) = _blogs_of(user, 1)
    api.get(f"/api/users/{user.id}/blogs")  # page 1 cached with the old title
    client.force_login(UserFactory(is_staff=True, is_superuser=True))

    response = client.post(
        f"/admin/blogs/blog/{blog.id}/change/",
        {"user": user.id, "shop": "", "title": "moderated", "images": "[]", "content": "ok"},
    )

    assert response.status_code == 302
    assert api.get(f"/api/users/{user.id}/blogs").json()["results"][0]["title"] == "moderated"


@pytest.mark.django_db(transaction=True)
def test_an_admin_bulk_delete_forgets_likes_and_refreshes_pages(user, api, client, redis_client):
    blogs = _blogs_of(user, 3)
    api.get(f"/api/users/{user.id}/blogs")
    likes.blog_like(blog_id=blogs[0].id, user_id=user.id)
    client.force_login(UserFactory(is_staff=True, is_superuser=True))

    client.post(
        "/admin/blogs/blog/",
        {"action": "delete_selected", "_selected_action": [b.id for b in blogs[:2]], "post": "yes"},
    )

    body = api.get(f"/api/users/{user.id}/blogs").json()
    assert (body["count"], [b["id"] for b in body["results"]]) == (1, [blogs[2].id])
    assert not redis_client.exists(keys.blog_likes(blogs[0].id))
